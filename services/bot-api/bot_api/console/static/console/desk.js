// The agent desk (docs/teams.md "The agent desk"): the story's handed-over conversations
// by the user's name and channel, one conversation's transcript, new lines arriving live
// on the desk's stream (Server-Sent Events read through fetch, so the token stays in a
// header, never in a URL), answering, taking over and giving back.
import { authorizing, call, listPage, page } from "./api.js";
import { byId, clearErrors, h, notice, showErrors } from "./ui.js";

const base = `/stories/${page.story}/handoffs`;
const path = (sessionId) => `${base}/${encodeURIComponent(sessionId)}`;
let handoffs = new Map(); // sessionId -> the open handoff, as listed
let open = null; // the session whose transcript is shown
let shown = new Set(); // the ids of the lines shown: a line read and heard is shown once
let retryMs = 2000; // as the stream says (`retry:`)

const label = (handoff) => `${handoff.userName} · ${handoff.channel}`;

function card(handoff) {
  const taken = handoff.takenBy ? ` · taken by ${handoff.takenBy.name}` : "";
  return h(
    "li",
    { "data-handoff": handoff.sessionId, className: handoff.sessionId === open ? "current" : "" },
    h("h3", {}, h("button", {
      type: "button",
      className: "link",
      "aria-label": `Open the conversation with ${handoff.userName}`,
      onclick: () => show(handoff.sessionId),
    }, label(handoff))),
    h("p", { className: "muted" }, `Since ${handoff.since} · last message ${handoff.lastMessageAt}${taken}`),
    h("p", { className: "unread", hidden: true }, "New message"),
  );
}

async function loadHandoffs() {
  const { items, total } = await listPage(base, 0);
  handoffs = new Map(items.map((handoff) => [handoff.sessionId, handoff]));
  byId("handoff-list").replaceChildren(...items.map(card));
  if (total === 0) byId("handoff-list").append(h("li", {}, "No open handoff."));
  byId("handoffs-total").textContent =
    total > items.length ? `The oldest ${items.length} of ${total} open handoffs.` : `${total} open.`;
  if (open) whoHasIt();
}

function speakerOf(entry) {
  if (entry.speaker === "user") return handoffs.get(open)?.userName || "User";
  if (entry.speaker === "person") return entry.person ? `${entry.person.name} (${entry.person.role})` : "A person";
  if (entry.speaker === "bot") return "Bot";
  return "";
}

function line(entry) {
  const who = speakerOf(entry);
  return h(
    "li",
    { className: entry.speaker, "data-line": entry.id, "data-speaker": entry.speaker },
    who ? h("span", { className: "who" }, who) : null,
    entry.text,
  );
}

function append(entry) {
  if (shown.has(entry.id)) return;
  shown.add(entry.id);
  const list = byId("desk-transcript");
  list.append(line(entry));
  list.scrollTop = list.scrollHeight;
}

function whoHasIt() {
  const handoff = handoffs.get(open);
  byId("desk-who").textContent = !handoff
    ? "The bot has this conversation."
    : handoff.takenBy
      ? `${label(handoff)} · taken over by ${handoff.takenBy.name}`
      : `${label(handoff)} · nobody has taken it over yet`;
  byId("desk-answer").hidden = !handoff;
}

async function show(sessionId) {
  const conversation = await call("GET", path(sessionId));
  open = sessionId;
  shown = new Set();
  byId("desk-transcript").replaceChildren();
  conversation.transcript.forEach(append);
  if (conversation.handoff) handoffs.set(sessionId, conversation.handoff);
  else handoffs.delete(sessionId);
  byId("desk-heading").textContent = conversation.handoff
    ? `Conversation with ${label(conversation.handoff)}`
    : "Conversation";
  byId("desk-empty").hidden = true;
  document.querySelectorAll("[data-handoff]").forEach((item) => {
    item.classList.toggle("current", item.dataset.handoff === sessionId);
    if (item.dataset.handoff === sessionId) item.querySelector(".unread").hidden = true;
  });
  whoHasIt();
}

async function heard(news) {
  if (news.entry && news.sessionId === open) append(news.entry);
  else if (news.entry) {
    const unread = document.querySelector(`[data-handoff="${CSS.escape(news.sessionId)}"] .unread`);
    if (unread) unread.hidden = false;
  }
  if (news.listChanged) await loadHandoffs();
}

// One event of the stream (the WHATWG parsing: `field: value` lines up to a blank one).
function parse(block) {
  let name = "message";
  const data = [];
  for (const row of block.split("\n")) {
    if (row.startsWith(":")) continue; // a heartbeat
    const [field, ...rest] = row.split(":");
    const value = rest.join(":").replace(/^ /, "");
    if (field === "event") name = value;
    else if (field === "data") data.push(value);
    else if (field === "retry" && /^\d+$/.test(value)) retryMs = Number(value);
  }
  return name === "desk" && data.length ? JSON.parse(data.join("\n")) : null;
}

async function follow() {
  const { headers, credentials } = authorizing("GET");
  const response = await fetch(`${base}/events`, {
    headers: { ...headers, Accept: "text/event-stream" },
    credentials,
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  byId("desk-status").textContent = "Live: new messages appear as they arrive.";
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    pending += value.replace(/\r\n?/g, "\n");
    let end;
    while ((end = pending.indexOf("\n\n")) >= 0) {
      const news = parse(pending.slice(0, end));
      pending = pending.slice(end + 2);
      if (news) await heard(news);
    }
  }
}

// The stream, opened again whenever it ends (the service's streams last minutes, and a
// replica shutting down ends them): what was said meanwhile is read again.
async function live() {
  for (;;) {
    try {
      await follow();
    } catch {
      // the service is away: tried again below
    }
    byId("desk-status").textContent = "Reconnecting…";
    await new Promise((resolve) => setTimeout(resolve, retryMs));
    try {
      await loadHandoffs();
      if (open) await show(open);
    } catch {
      // still away
    }
  }
}

async function answer(event) {
  event.preventDefault();
  const form = byId("desk-answer");
  try {
    await call("POST", `${path(open)}/messages`, { text: byId("desk-text").value });
    clearErrors(form);
    byId("desk-text").value = "";
  } catch (error) {
    showErrors(form, error);
  }
}

async function act(method, suffix, done) {
  try {
    await call(method, `${path(open)}${suffix}`);
    notice(done);
  } catch (error) {
    notice(error.message, "error");
  }
}

export async function start() {
  await loadHandoffs();
  byId("desk-answer").addEventListener("submit", answer);
  byId("desk-take-over").addEventListener("click", () => act("POST", "/take-over", "Taken over: it is yours."));
  byId("desk-give-back").addEventListener("click", () => act("DELETE", "", "Given back: the bot answers again."));
  live();
}
