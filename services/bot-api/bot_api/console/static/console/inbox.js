// The misses inbox: clusters of what the bot did not understand, biggest first, each with
// the interaction the engine suggests (preselected when it scores PRESELECT_SCORE or more);
// one click adds its messages, a new interaction is made with its response, and the last
// action can be undone on this page (docs/history.md).
import { call, everything, page } from "./api.js";
import { languageBadge, languageFilter, storyLanguages } from "./turn_languages.js";
import { byId, h, notice } from "./ui.js";

// Scores are calibrated so that 0.5 reads the blend above which nearly every right best
// match lies (docs/matching.md, steps 5 and 7): a suggestion below it (0.26 was seen
// preselected) is more often a guess than the answer, so the user chooses. Not the
// story's own confidence: a message that fell back scored below it by definition, so
// nothing would ever be preselected for the clusters the inbox is mostly made of.
const PRESELECT_SCORE = 0.5;

const base = () => `/stories/${page.story}/inbox`;
let interactions = []; // the story's interactions that take phrases
let undo = null; // what puts the last action back

function choices(cluster) {
  const select = h(
    "select",
    { "aria-label": `Interaction for "${cluster.examples[0]}"`, "data-role": "interaction" },
    h("option", { value: "" }, "Choose an interaction"),
    ...interactions.map((i) => h("option", { value: i.id }, i.name)),
  );
  select.value = cluster.suggested?.score >= PRESELECT_SCORE ? cluster.suggested.id : "";
  return select;
}

const when = (iso) => new Date(iso).toLocaleString();

// A new interaction of the cluster's messages, with the response it answers them with:
// an interaction that answers nothing would leave the users who said them unanswered.
function newInteraction(cluster) {
  const name = h("input", { "aria-label": "New interaction name", maxlength: "1024", value: cluster.examples[0].slice(0, 60) });
  const response = h("textarea", { "aria-label": "Its response (required)", maxlength: "2048", rows: 2, required: true, placeholder: "What the bot answers them" });
  const form = h("form", { className: "new-interaction", "data-action": "create", novalidate: true }, name, response,
    h("button", { type: "submit" }, "New interaction"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!response.value.trim()) {
      response.setAttribute("aria-invalid", "true");
      notice("Write the new interaction's response first.", "error");
      response.focus();
      return;
    }
    create(cluster, name.value, response.value);
  });
  return form;
}

// How many of the cluster's turns were read in each language (a story with further languages).
const languagesOf = (cluster) =>
  h("p", { className: "languages" }, ...Object.entries(cluster.languages).flatMap(([code, count]) =>
    [languageBadge(code, `${code} × ${count}`), " "]));

function card(cluster) {
  const select = choices(cluster);
  const suggested = cluster.suggested
    ? `Suggested: ${cluster.suggested.name} (score ${cluster.suggested.score.toFixed(2)})`
    : "No suggestion";
  return h(
    "li",
    { "data-cluster": cluster.id },
    h("h3", {}, `${cluster.count} × “${cluster.examples[0]}”`),
    cluster.languages ? languagesOf(cluster) : null,
    h("ul", { className: "examples" }, ...cluster.examples.map((text) => h("li", {}, text))),
    h("p", { className: "muted" }, `${suggested} · first ${when(cluster.first)} · last ${when(cluster.last)}`),
    select,
    h("button", { type: "button", "data-action": "assign", onclick: () => assign(cluster, select) }, "Add messages"),
    newInteraction(cluster),
    h("button", { type: "button", className: "danger", "data-action": "ignore", onclick: () => ignore(cluster) }, "Ignore"),
  );
}

async function load() {
  const language = byId("inbox-language").value;
  const inbox = await call("GET", language ? `${base()}?language=${language}` : base());
  byId("inbox-total").textContent = `${inbox.total} cluster${inbox.total === 1 ? "" : "s"} to review.`;
  byId("cluster-list").replaceChildren(...inbox.clusters.map(card));
  if (inbox.clusters.length === 0) byId("cluster-list").append(h("li", {}, "Nothing to review."));
}

// `more`: nodes said after the text (a link).
function done(text, putBack, ...more) {
  undo = putBack;
  const button = h("button", { type: "button", id: "undo" }, "Undo");
  button.addEventListener("click", async () => {
    const action = undo;
    undo = null;
    button.remove();
    await action();
    await load();
    notice("Undone.");
  });
  notice(text, more.length ? "error" : "info");
  byId("notice").append(...more, " ", button);
}

async function act(work) {
  try {
    await work();
  } catch (error) {
    notice(error.message, "error");
  }
  await load();
}

const reopen = (answer) => call("POST", `${base()}/reopen`, { turns: answer.turns });

function assign(cluster, select) {
  if (!select.value) {
    notice("Choose the interaction to add the messages to.", "error");
    select.focus();
    return undefined;
  }
  return act(async () => {
    const path = `/stories/${page.story}/interactions/${select.value}`;
    const before = (await call("GET", path)).userSays;
    const answer = await call("POST", `${base()}/${cluster.id}/assign`, { interaction: select.value });
    const name = select.selectedOptions[0].textContent;
    const left = answer.notAdded.length ? `; ${answer.notAdded.length} did not fit (99 phrases at most)` : "";
    done(`Added ${answer.added.length} message(s) to ${name}${left}.`, async () => {
      await call("PUT", path, { userSays: before });
      await reopen(answer);
    });
  });
}

// The interaction is created with its response in one call, so it never stands answerless.
function create(cluster, name, text) {
  return act(async () => {
    const responses = [{ type: "text", messages: [text] }];
    const answer = await call("POST", `${base()}/${cluster.id}/interaction`, { name, responses });
    done(`Created ${name} with ${answer.added.length} phrase(s), answering "${text}".`, async () => {
      await call("DELETE", `/stories/${page.story}/interactions`, [answer.interaction]);
      await reopen(answer);
    });
  });
}

function ignore(cluster) {
  return act(async () => {
    const answer = await call("POST", `${base()}/${cluster.id}/ignore`, {});
    done(`Ignored ${answer.ignored.length} message(s).`, () => reopen(answer));
  });
}

export async function start() {
  const all = await everything(`/stories/${page.story}/interactions`);
  interactions = all.filter((i) => i.type !== "fallback");
  const languages = await storyLanguages();
  if (languages.length) languageFilter(byId("inbox-language"), languages);
  byId("inbox-filter").addEventListener("submit", (event) => {
    event.preventDefault();
    load();
  });
  await load();
}
