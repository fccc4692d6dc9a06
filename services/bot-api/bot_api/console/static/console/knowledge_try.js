// "Try a question" on the Knowledge page: the question sent to /query as the test chat
// sends it (developer token, the draft, debug), each in a session of its own so no
// context a former question left decides it; the answer, its source and the passages
// weighed (result.debug.knowledge) are shown.
import { call } from "./api.js";
import { byId, h } from "./ui.js";

const EXCERPT = 240; // characters of a ranked passage shown; its document has the rest

const score = (value) => (typeof value === "number" ? value.toFixed(3) : "—");
const excerpt = (text) => (text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text);

const threshold = (result) => {
  const weighed = result.debug?.knowledge;
  return weighed ? ` (the threshold is ${score(weighed.threshold)})` : "";
};

function verdict(result) {
  const knowledge = result.knowledge;
  if (knowledge) {
    return [
      h("p", { className: "try-answer" }, knowledge.answer),
      window.ParleyFulfillment.source(knowledge),
      knowledge.question ? h("p", { className: "muted" }, `Matched the FAQ question “${knowledge.question}”.`) : null,
      h("p", { className: "muted" }, `Score ${score(knowledge.score)}${threshold(result)}.`),
    ];
  }
  const interaction = result.interaction;
  if (interaction && interaction.type !== "fallback") {
    return [h("p", {}, `The interaction ${interaction.name} answered (score ${score(result.score)}): the story's interactions answer before its documents.`)];
  }
  return [h("p", {}, "No document answers it well enough: the turn falls back.")];
}

function ranked(result, answeredBy, titleOf) {
  const weighed = result.debug?.knowledge;
  if (!weighed) return null;
  if (weighed.passages.length === 0) return h("p", { className: "muted" }, "No passage holds a word of the question.");
  const rows = weighed.passages.map((passage, index) =>
    h(
      "tr",
      { "data-passage": passage.id, className: passage.id === answeredBy ? "answering" : null },
      h("td", { className: "number" }, String(index + 1)),
      h("td", {}, titleOf(passage.documentId) || passage.documentId),
      h("td", { className: "number" }, score(passage.score)),
      h("td", { className: "number" }, score(passage.lexical)),
      h("td", { className: "number" }, score(passage.meaning)),
      h("td", {}, excerpt(passage.text)),
    ),
  );
  return h(
    "div",
    { className: "table-box" },
    h(
      "table",
      { className: "report-table ranked" },
      h("caption", {}, `The passages weighed, best first (threshold ${score(weighed.threshold)})`),
      h("thead", {}, h("tr", {}, ["#", "Document", "Rank score", "Lexical", "Meaning", "Passage"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, rows),
    ),
  );
}

export function startTry(storyId, titleOf) {
  const shown = byId("try-result");
  byId("try-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const question = byId("try-question").value.trim();
    if (!question) return;
    try {
      const { result } = await call("POST", "/query", {
        sessionId: crypto.randomUUID(),
        storyId,
        query: question,
        debug: true,
        parameters: { default_source: "console" },
      });
      const parts = [...verdict(result), ranked(result, result.knowledge?.passageId, titleOf)];
      shown.replaceChildren(...parts.filter(Boolean));
    } catch (error) {
      shown.replaceChildren(h("p", { className: "field-error", role: "alert" }, error.message));
    }
  });
}
