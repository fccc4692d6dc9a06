// The account's audit log (docs/teams.md "Audit log"): filters, a page at a time, newest
// first, and an export as JSON lines fetched with the token (never in a URL).
import { call, file } from "./api.js";
import { byId, h, notice, saveFile } from "./ui.js";

const PAGE = 50;
let next = null;

// The filters as a query string; a time from a datetime-local input is the browser's.
function filters() {
  const query = new URLSearchParams();
  for (const name of ["member", "story", "kind"]) {
    const value = byId(`audit-${name}`).value.trim();
    if (value) query.set(name, value);
  }
  for (const name of ["from", "to"]) {
    const value = byId(`audit-${name}`).value;
    if (value) query.set(name, new Date(value).toISOString());
  }
  return query;
}

const row = (item) =>
  h(
    "tr",
    { className: item.confirmed ? "" : "unconfirmed" },
    h("td", {}, new Date(item.at).toLocaleString()),
    h("td", {}, `${item.actor.name} (${item.actor.kind})`),
    h("td", {}, item.kind + (item.confirmed ? "" : " (unconfirmed)")),
    h("td", {}, item.storyId ?? ""),
    h("td", {}, item.target),
    h("td", {}, item.summary),
  );

async function show(cursor) {
  const query = filters();
  query.set("limit", String(PAGE));
  if (cursor) query.set("cursor", cursor);
  try {
    const answer = await call("GET", `/audit?${query}`);
    const rows = byId("audit-rows");
    if (!cursor) rows.replaceChildren();
    rows.append(...answer.items.map(row));
    next = answer.next;
    byId("audit-next").hidden = next === null;
    byId("audit-empty").hidden = rows.childElementCount > 0;
  } catch (error) {
    notice(`Not shown: ${error.message}`, "error");
  }
}

async function exportLog() {
  try {
    saveFile(await file(`/audit/export?${filters()}`), "audit.jsonl");
  } catch (error) {
    notice(`Not exported: ${error.message}`, "error");
  }
}

export async function start() {
  byId("audit-filters").addEventListener("submit", (event) => {
    event.preventDefault();
    show(null);
  });
  byId("audit-next").addEventListener("click", () => show(next));
  byId("audit-export").addEventListener("click", exportLog);
  await show(null);
}
