// The story's webhook connections, through integrations-api; the last delivery error shown.
import { integrations, page, storyConnections } from "./api.js";
import { byId, clearErrors, confirmThen, h, linesOf, notice, showErrors } from "./ui.js";

let editing = null; // the connection being edited (its auth is kept as it is)

function headersOf(text) {
  const lines = linesOf(text);
  if (lines.length === 0) return undefined;
  return Object.fromEntries(
    lines.map((line) => {
      const at = line.indexOf(":");
      return at < 0 ? [line, ""] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
    }),
  );
}

function card(connection) {
  return h(
    "li",
    { "data-connection": connection.id },
    h("h3", {}, connection.name),
    h("p", {}, h("code", {}, connection.url)),
    connection.error
      ? h("p", { className: "delivery-error", role: "note" }, `Last delivery failed: ${connection.error}`)
      : h("p", { className: "muted" }, "No failed delivery."),
    h("p", { className: "muted" }, `Id ${connection.id} · updated ${connection.updatedAt}`),
    h("button", { type: "button", onclick: () => edit(connection.id) }, `Edit ${connection.name}`),
    h("button", { type: "button", className: "danger", onclick: () => remove(connection) }, `Delete ${connection.name}`),
  );
}

async function load() {
  const list = await storyConnections(page.story);
  byId("connection-list").replaceChildren(...list.map(card));
  if (list.length === 0) byId("connection-list").append(h("li", {}, "No connection yet."));
}

async function edit(id) {
  editing = await integrations("GET", `/${id}`);
  byId("connection-form-title").textContent = `Edit ${editing.name}`;
  byId("connection-name").value = editing.name;
  byId("connection-url").value = editing.url;
  byId("connection-token").value = editing.token || "";
  byId("connection-headers").value = Object.entries(editing.headers || {})
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n");
  byId("connection-name").focus();
}

function reset() {
  editing = null;
  byId("connection-form").reset();
  byId("connection-form-title").textContent = "New connection";
}

function remove(connection) {
  confirmThen(`Delete the connection "${connection.name}"?`, async () => {
    await integrations("DELETE", `/${connection.id}`);
    await load();
    notice("Deleted.");
  });
}

export async function start() {
  await load();
  const form = byId("connection-form");
  byId("connection-new").addEventListener("click", reset);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { name: byId("connection-name").value, url: byId("connection-url").value.trim() };
    const token = byId("connection-token").value;
    const headers = headersOf(byId("connection-headers").value);
    if (token) body.token = token;
    if (headers) body.headers = headers;
    if (editing?.auth) body.auth = editing.auth;
    try {
      if (editing) await integrations("PUT", `/${editing.id}`, body);
      else await integrations("POST", "", { ...body, storyId: page.story });
      clearErrors(form);
      reset();
      await load();
      notice("Saved.");
    } catch (error) {
      showErrors(form, error);
    }
  });
}
