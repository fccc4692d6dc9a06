// Small DOM helpers: building elements, notices, API errors next to their fields, lists
// shown a page at a time, the story's language.
import { listPage, page } from "./api.js";

export function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "className") node.className = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  node.append(...children.flat().filter((child) => child !== undefined && child !== null));
  return node;
}

export const byId = (id) => document.getElementById(id);

export function notice(text, kind = "info") {
  const box = byId("notice");
  box.textContent = text;
  box.dataset.kind = kind;
}

// Hands a Blob to the browser as a download named `name`.
export function saveFile(blob, name) {
  const url = URL.createObjectURL(blob);
  h("a", { href: url, download: name }).click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000); // once the browser has read it
}

export function confirmThen(question, action) {
  if (window.confirm(question)) action();
}

// [["responses.0.title", "message"], ...] from marshmallow's error tree.
export function flatten(tree, prefix = "") {
  if (Array.isArray(tree)) {
    return tree.every((item) => typeof item === "string")
      ? [[prefix, tree.join(" ")]]
      : tree.flatMap((item, index) => flatten(item, prefix ? `${prefix}.${index}` : `${index}`));
  }
  if (tree && typeof tree === "object") {
    return Object.entries(tree).flatMap(([name, value]) =>
      flatten(value, prefix ? `${prefix}.${name}` : name),
    );
  }
  return [[prefix, String(tree)]];
}

export function clearErrors(form) {
  form.querySelectorAll(".field-error[data-placed]").forEach((node) => node.remove());
  form.querySelectorAll(".field-error[data-error-for]").forEach((node) => (node.textContent = ""));
  form.querySelectorAll("[aria-invalid]").forEach((node) => node.removeAttribute("aria-invalid"));
}

// The field an error path names, or the closest enclosing one ("userSays.3" -> userSays).
function fieldFor(form, path) {
  const parts = path.split(".");
  for (let length = parts.length; length > 0; length -= 1) {
    const name = parts.slice(0, length).join(".");
    const field = form.querySelector(`[data-field="${CSS.escape(name)}"]`);
    if (field) return { field, name, rest: parts.slice(length).join(".") };
  }
  return null;
}

let placed = 0;

const ONE = {
  userSays: "phrase", responses: "response", messages: "message", replies: "reply",
  buttons: "button", parameters: "parameter", prompts: "prompt", promptReplies: "prompt reply",
  entries: "entry", synonyms: "synonym", triggers: "trigger", faq: "pair", languages: "language",
};

// marshmallow names a mapping's key "key" and its value "value" in an error's path:
// "translations.de.value.userSays.0" is said of the field "translations.de.userSays.0".
const errorPath = (path) => path.replace(/^(translations\.[^.]+)\.(?:key|value)(?=\.|$)/, "$1");

// An error position as a person counts, within the field named `name`:
// ("responses.0.replies", "2") -> "reply 3"; ("", "responses.1.title") -> "response 2, title".
export function where(name, rest) {
  const words = [];
  let noun = name.split(".").pop();
  for (const part of rest.split(".")) {
    if (/^\d+$/.test(part)) {
      if (words.length && words[words.length - 1] === noun) words.pop();
      words.push(`${ONE[noun] || noun} ${Number(part) + 1}`);
    } else {
      words.push(part);
    }
    noun = part;
  }
  return words.join(", ");
}

export function showErrors(form, error) {
  clearErrors(form);
  const errors = error.body?.status?.errors;
  if (!errors) {
    notice(error.message, "error");
    return;
  }
  notice("Not saved: see the messages beside the fields.", "error");
  for (const [given, message] of flatten(errors)) {
    const path = errorPath(given);
    const found = fieldFor(form, path);
    if (!found) {
      const general = form.querySelector('.field-error[data-error-for=""]');
      if (general) general.textContent = `${where("", path)}: ${message}`;
      else notice(`${where("", path)}: ${message}`, "error");
      continue;
    }
    placed += 1;
    const text = found.rest ? `${where(found.name, found.rest)}: ${message}` : message;
    const box = h("p", { className: "field-error", role: "alert", id: `error-${placed}` }, text);
    box.dataset.placed = "";
    box.dataset.errorPath = path;
    found.field.setAttribute("aria-invalid", "true");
    found.field.setAttribute("aria-describedby", box.id);
    (found.field.closest(".limited") || found.field).after(box);
  }
  // A field in a language tab not shown (docs/console.md "Languages"): its tab is opened.
  const first = form.querySelector("[aria-invalid]");
  const tab = first?.closest('[role="tabpanel"][hidden]')?.getAttribute("aria-labelledby");
  if (tab) byId(tab).click();
  first?.focus();
}

// A live "12/80" beside an input: the API's limit shown as you type.
export function counted(input, max) {
  const counter = h("span", { className: "counter", "aria-live": "polite" });
  const update = () => {
    counter.textContent = `${input.value.length}/${max}`;
    counter.classList.toggle("over", input.value.length > max);
  };
  input.addEventListener("input", update);
  update();
  return h("span", { className: "limited" }, input, counter);
}

// A list edited item by item (a text's messages, replies, buttons, prompts): each item is
// its own control, so an item keeps its newlines and spaces and one the user did not touch
// is sent back as it was read. `make(value, path, number)` gives an item's { node, read },
// `path` the API's (`responses.0.messages.2`, where an error about it is shown).
// The list's counter says "2/20 messages"; Add stops at `max`.
export function itemList(path, values, { one, many, max, blank, make }) {
  const rows = h("div", { className: "item-rows" });
  const counter = h("span", { className: "counter", "aria-live": "polite" });
  const add = h("button", { type: "button" }, `Add a ${one}`);
  let items = [];
  const draw = (list) => {
    items = list.map((value, index) => {
      const { node, read } = make(value, `${path}.${index}`, index + 1);
      const item = { read };
      const remove = h("button", { type: "button", className: "danger" }, `Remove ${one} ${index + 1}`);
      remove.addEventListener("click", () => draw(items.filter((other) => other !== item).map((other) => other.read())));
      item.row = h("div", { className: "item" }, node, remove);
      return item;
    });
    rows.replaceChildren(...items.map((item) => item.row));
    counter.textContent = `${items.length}/${max} ${many}`;
    counter.classList.toggle("over", items.length > max);
    add.disabled = items.length >= max;
  };
  add.addEventListener("click", () => {
    draw([...items.map((item) => item.read()), blank]);
    rows.lastElementChild.querySelector("input, textarea")?.focus();
  });
  draw(values);
  const node = h("div", { className: "items", "data-field": path }, rows, h("div", { className: "inline" }, add, counter));
  return { node, read: () => items.map((item) => item.read()) };
}

// A textarea as tall as its text (`least` to 8 rows): a message of six lines shows them
// all. Also for one-line texts (`least` 1), where an input would drop a stored newline.
export function textBox(value, attributes = {}, least = 2) {
  const rows = Math.min(8, Math.max(least, value.split("\n").length));
  return Object.assign(h("textarea", { rows, ...attributes }), { value });
}

// The phrases of `area`, one a line, shown in `box` with their {{entity:alias}} marked.
const SLOT = /(\{\{[A-Za-z0-9_-]+:[A-Za-z0-9_-]+\}\})/;
export function showPhrases(area, box) {
  box.replaceChildren(
    ...linesOf(area.value).map((phrase) =>
      h("p", {}, phrase.split(SLOT).map((part) => (SLOT.test(part) ? h("mark", {}, part) : part))),
    ),
  );
}

export const linesOf = (text) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line);

export const commaList = (text) =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item);

// Shows `path` (a list of the API) in `list` a page at a time, with Previous and Next and
// "21–40 of 230" below it: the API's limit/offset and X-Total-Count.
export async function pagedList(list, path, render, empty, { size = 50, base = "" } = {}) {
  const status = h("span", { className: "muted", "aria-live": "polite" });
  const previous = h("button", { type: "button" }, "Previous page");
  const next = h("button", { type: "button" }, "Next page");
  const nav = h("nav", { className: "pager", "aria-label": "Pages" }, previous, status, next);
  list.after(nav);
  let offset = 0;
  async function show(at) {
    const { items, total } = await listPage(path, at, { base, limit: size });
    offset = at;
    list.replaceChildren(...items.map(render));
    if (total === 0) list.append(h("li", {}, empty));
    status.textContent = items.length ? `${at + 1}–${at + items.length} of ${total}` : "";
    previous.disabled = at === 0;
    next.disabled = at + items.length >= total;
    nav.hidden = total <= size && at === 0;
  }
  previous.addEventListener("click", () => show(Math.max(0, offset - size)));
  next.addEventListener("click", () => show(offset + size));
  await show(0);
}

// The languages a story may be in, and each one's HTML `lang` tag (domain/settings.py).
const LANGUAGE_TAGS = JSON.parse(page.languageTags || "{}");
export const languageTag = (language) => LANGUAGE_TAGS[language] || "";

const NAME_OF_TAG = Object.fromEntries(Object.entries(LANGUAGE_TAGS).map(([name, tag]) => [tag, name]));
const capitalised = (name) => name[0].toUpperCase() + name.slice(1);

export const languageCodes = () => Object.values(LANGUAGE_TAGS);

// The ISO 639-1 code of a story language given by its name or code, as the API reads it
// ("german", "de", "pt-BR"); what names no story language stays as it is given.
export function languageCode(given) {
  const lowered = given.toLowerCase();
  const code = LANGUAGE_TAGS[lowered] || lowered.replace("_", "-").split("-")[0];
  return NAME_OF_TAG[code] ? code : given;
}

// "German (de)" for "de" or "german"; what names no story language is shown as it is.
export function languageLabel(given) {
  const code = languageCode(given);
  return NAME_OF_TAG[code] ? `${capitalised(NAME_OF_TAG[code])} (${code})` : given;
}

export function languageOptions(select, chosen = "english") {
  select.replaceChildren(
    ...Object.keys(LANGUAGE_TAGS).map((name) =>
      h("option", { value: name }, capitalised(name)),
    ),
  );
  select.value = chosen;
}
