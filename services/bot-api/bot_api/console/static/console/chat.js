// The test chat beside a story: /query with debug, the match explained, the session's state;
// the conversation so far can be saved as a conversation test (docs/tests.md).
import { call } from "./api.js";
import { byId, h, languageLabel, languageTag, notice } from "./ui.js";

// What a saved turn expects: the interaction that answered (or the fallback), and whether
// it was still asking for a parameter.
function expectation(result) {
  const interaction = result.interaction;
  const expect = !interaction || interaction.type === "fallback" ? { fallback: true } : { interaction: interaction.name };
  if (result.incomplete) expect.incomplete = true;
  if (result.answeredIn) expect.answeredIn = result.answeredIn; // a story of several languages
  return expect;
}

export function startChat(storyId) {
  const sessionKey = `parley.testSession.${storyId}`;
  const log = byId("chat-log");
  const newSession = () => {
    const id = crypto.randomUUID();
    sessionStorage.setItem(sessionKey, id);
    return id;
  };
  const sessionId = () => sessionStorage.getItem(sessionKey) || newSession();
  let turns = []; // this page's turns of the session, as a test would take them
  const language = byId("chat-language");

  function explain(result) {
    const debug = result.debug;
    const matched = result.interaction
      ? `${result.interaction.name} (${result.interaction.type}), score ${result.score.toFixed(3)}`
      : "no interaction";
    const rows = (debug?.candidates || []).map((candidate) =>
      h(
        "tr",
        {},
        h("td", {}, candidate.name),
        h("td", {}, candidate.score.toFixed(3)),
        h("td", {}, candidate.tier),
        h("td", {}, candidate.phrase || ""),
      ),
    );
    const shown = [ // replaceChildren would write a null as the text "null"
      h("p", {}, `Matched: ${matched}; threshold ${result.confidence}.`),
      debug ? h("p", {}, debug.decision) : null,
      result.knowledge
        ? h("p", {}, `Answered from the document “${result.knowledge.title}”, score ${result.knowledge.score.toFixed(3)}.`)
        : null,
      rows.length
        ? h(
            "table",
            { className: "candidates" },
            h("thead", {}, h("tr", {}, ["Candidate", "Score", "Tier", "Closest phrase"].map((t) => h("th", {}, t)))),
            h("tbody", {}, rows),
          )
        : null,
    ];
    byId("chat-debug").replaceChildren(...shown.filter((node) => node));
    byId("chat-parameters").replaceChildren(
      ...Object.entries(result.parameters).flatMap(([name, value]) => [
        h("dt", {}, name),
        h("dd", {}, String(value)),
      ]),
    );
    byId("chat-contexts").replaceChildren(
      ...result.contexts.map((context) => h("li", {}, `${context.name} (lifespan ${context.lifespan})`)),
    );
  }

  // Only a story with further languages says them (docs/languages.md).
  const languages = (result) =>
    h("p", { className: "chat-languages" },
      h("span", { className: "badge", title: "The language the message was read in" }, `read in ${result.language}`),
      h("span", { className: "badge", title: "The language of the answer" }, `answered in ${result.answeredIn}`));

  async function send(turn, said) {
    if (said) log.append(h("p", { className: "parley-item parley-user" }, said));
    try {
      const answer = await call("POST", "/query", {
        sessionId: sessionId(),
        storyId,
        debug: true,
        parameters: { default_source: "console", ...(language.value && { default_language: language.value }) },
        ...turn,
      });
      explain(answer.result);
      const input = turn.query !== undefined ? { query: turn.query } : { trigger: turn.trigger };
      const spoken = language.value ? { language: language.value } : {};
      turns.push({ ...input, ...spoken, expect: expectation(answer.result) });
      await window.ParleyFulfillment.renderResult(answer.result, log, send);
      if (answer.result.answeredIn) log.append(languages(answer.result));
    } catch (error) {
      log.append(h("p", { className: "parley-item parley-error" }, error.message));
    }
    log.scrollTop = log.scrollHeight;
  }

  byId("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = byId("chat-input");
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    send({ query: text }, text);
  });
  byId("trigger-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const trigger = byId("trigger-input").value.trim();
    if (trigger) send({ trigger }, `[trigger ${trigger}]`);
  });
  byId("chat-save").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = byId("chat-test-name").value.trim();
    if (!name || turns.length === 0) {
      notice(turns.length ? "Name the test first." : "Say something in the chat first.", "error");
      return;
    }
    try {
      await call("POST", `/stories/${storyId}/tests`, { name, turns: turns.slice(0, 20) });
      byId("chat-test-name").value = "";
      notice(`Saved the chat as the test "${name}".`);
    } catch (error) {
      notice(error.message, "error");
    }
  });
  byId("chat-reset").addEventListener("click", () => {
    newSession();
    turns = [];
    log.replaceChildren();
    ["chat-debug", "chat-parameters", "chat-contexts"].forEach((id) => byId(id).replaceChildren());
  });
  return {
    // The picker of a story with further languages: its default first, or none.
    speaks(settings) {
      const main = languageTag(settings.language);
      const further = settings.languages.filter((code) => code !== main);
      const chosen = language.value;
      language.replaceChildren(
        h("option", { value: "" }, "As the story reads the message"),
        h("option", { value: main }, `${languageLabel(main)}, the default`),
        ...further.map((code) => h("option", { value: code }, languageLabel(code))),
      );
      language.value = [main, ...further].includes(chosen) ? chosen : "";
      byId("chat-language-row").hidden = further.length === 0;
    },
  };
}
