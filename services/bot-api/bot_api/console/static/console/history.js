// The story's conversation history: conversations newest first, a page at a time (the API's
// cursor), and a transcript where each turn shows why it matched (docs/history.md).
import { call, file, page } from "./api.js";
import { languageBadge, languageFilter, storyLanguages } from "./turn_languages.js";
import { byId, confirmThen, h, notice } from "./ui.js";

const base = `/stories/${page.story}/conversations`;
let cursor = null; // the next page's, null once the last page is shown
let shown = null; // the session whose transcript is open
let languages = []; // the story's, when it has further languages: each turn's is shown

function filters() {
  const query = new URLSearchParams({ limit: "20" });
  if (byId("history-outcome").value) query.set("outcome", byId("history-outcome").value);
  for (const name of ["text", "source", "channel"]) {
    const value = byId(`history-${name}`).value.trim();
    if (value) query.set(name, value);
  }
  if (byId("history-test").value) query.set("test", byId("history-test").value);
  if (byId("history-language").value) query.set("language", byId("history-language").value);
  return query;
}

function item(conversation) {
  const fallbacks = conversation.fallbacks ? ` · ${conversation.fallbacks} fell back` : "";
  return h(
    "li",
    { "data-session": conversation.sessionId },
    h("button", { type: "button", className: "link", onclick: () => open(conversation.sessionId) },
      conversation.sessionId),
    h("p", { className: "muted" }, `${conversation.turns} turn${conversation.turns === 1 ? "" : "s"}${fallbacks}`),
    h("p", { className: "muted" }, `${conversation.started} – ${conversation.lastAt}`),
  );
}

// Where a turn came from: its source, the channel that carried it, the test chat's mark.
function origin(turn) {
  const parts = [turn.defaultSource, turn.channel ? `channel ${turn.channel}` : null, turn.test ? "test chat" : null];
  return parts.filter(Boolean).join(", ");
}

async function load(more = false) {
  const query = filters();
  if (more && cursor) query.set("cursor", cursor);
  const answer = await call("GET", `${base}?${query}`);
  const list = byId("conversation-list");
  const items = answer.items.map(item);
  if (more) list.append(...items);
  else list.replaceChildren(...items);
  if (!list.children.length) list.append(h("li", {}, "No conversation yet."));
  cursor = answer.nextCursor;
  byId("conversation-more").hidden = !cursor;
}

const score = (value) => value.toFixed(2);

function why(turn) {
  if (turn.givenBack) return "Given back to the bot: the user was told so.";
  if (turn.person) return "Written at the agent desk.";
  if (turn.trigger || turn.goto) return `Asked for directly (${turn.trigger ? "trigger" : "goto"}).`;
  const verdict = turn.score >= turn.threshold ? "≥" : "<";
  return `Score ${score(turn.score)} ${verdict} threshold ${score(turn.threshold)}.`;
}

// The language a turn was read in, and the answer's when it differs (docs/languages.md).
function languageOf(turn) {
  if (!languages.length || !turn.language) return null;
  const answered = turn.answeredIn === turn.language ? "" : ` → answered in ${turn.answeredIn}`;
  return languageBadge(turn.language, `${turn.language}${answered}`);
}

// Who answered the turn and why; a person's message at the agent desk is theirs, and
// their take-over answered nothing (docs/teams.md "The agent desk").
function byline(turn) {
  const person = turn.person ? `${turn.person.name} (${turn.person.role})` : null;
  if (turn.takenOver) return `Taken over by ${person ?? "the desk"} at the agent desk: nothing was said to the user.`;
  const answered = person ?? (turn.interaction ? `${turn.interaction.name} (${turn.interaction.type})` : "nothing");
  return `Answered by ${answered}. ${why(turn)}`;
}

function turnItem(turn) {
  const said = turn.query ?? (turn.trigger ? `trigger: ${turn.trigger}` : turn.goto ? `goto: ${turn.goto}` : "—");
  const language = languageOf(turn);
  const candidates = turn.candidates.map((c) => h("li", {}, `${c.name}: ${score(c.score)}`));
  return h(
    "li",
    { className: `turn ${turn.outcome}`, "data-outcome": turn.outcome },
    h("p", { className: "muted" }, [turn.at, turn.outcome, `${turn.latencyMs} ms`, origin(turn)].filter(Boolean).join(" · "), language ? " " : null, language),
    h("p", { className: "said", lang: language ? turn.language : null }, said),
    h("p", {}, byline(turn)),
    candidates.length ? h("details", {}, h("summary", {}, "Candidates"), h("ol", { className: "candidates" }, candidates)) : null,
    turn.fulfillment ? h("p", { className: "bot" }, turn.fulfillment) : null,
    turn.webhook ? h("p", { className: "muted" }, `Webhook: ${turn.webhook}`) : null,
  );
}

async function open(sessionId) {
  const transcript = await call("GET", `${base}/${encodeURIComponent(sessionId)}`);
  shown = sessionId;
  byId("transcript-heading").textContent = `Transcript of ${sessionId}`;
  byId("transcript-empty").hidden = true;
  byId("transcript").replaceChildren(...transcript.turns.map(turnItem));
  byId("conversation-delete").hidden = false;
}

function erase() {
  confirmThen(`Delete the conversation ${shown} for good?`, async () => {
    await call("DELETE", `${base}/${encodeURIComponent(shown)}`);
    shown = null;
    byId("transcript").replaceChildren();
    byId("transcript-empty").hidden = false;
    byId("conversation-delete").hidden = true;
    byId("transcript-heading").textContent = "Transcript";
    await load();
    notice("Deleted.");
  });
}

// The export needs the token in a header, so it is fetched and handed over as a file.
async function download(format) {
  let blob;
  try {
    blob = await file(`${base}/export?format=${format}`);
  } catch (error) {
    return notice(`The export failed (${error.message}).`, "error");
  }
  const url = URL.createObjectURL(blob);
  h("a", { href: url, download: `conversations.${format}` }).click();
  URL.revokeObjectURL(url);
}

export async function start() {
  languages = await storyLanguages();
  if (languages.length) languageFilter(byId("history-language"), languages);
  await load();
  byId("history-filter").addEventListener("submit", (event) => {
    event.preventDefault();
    load();
  });
  byId("conversation-more").addEventListener("click", () => load(true));
  byId("conversation-delete").addEventListener("click", erase);
  byId("export-jsonl").addEventListener("click", () => download("jsonl"));
  byId("export-csv").addEventListener("click", () => download("csv"));
}
