// A story's knowledge: its documents and FAQ pairs listed with their passages and the
// state of their meaning; a file uploaded (or dropped), text or a web page added, a
// document opened, fetched again or deleted; FAQ pairs edited (faq_editor.js); a question tried (knowledge_try.js).
import { call, page } from "./api.js";
import { startFaqEditor } from "./faq_editor.js";
import { startTry } from "./knowledge_try.js";
import { byId, clearErrors, confirmThen, h, notice, showErrors } from "./ui.js";

const base = `/stories/${page.story}/knowledge`;

// What a file's extension says it is; the API reads these (knowledge/schemas.py).
const TYPES = {
  pdf: "application/pdf",
  html: "text/html",
  htm: "text/html",
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  csv: "text/csv",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
};
const NAMES = {
  "application/pdf": "PDF",
  "text/html": "HTML",
  "text/markdown": "Markdown",
  "text/plain": "Text",
  [TYPES.docx]: "Word",
};

// Passages whose vectors have not landed are matched by their words alone; the list is
// read again until none wait, as the story page does for phrases.
const MEANING_POLL_MS = 5000;
let poll = null;
let documents = [];
let opened = null; // the document whose passages are shown
let faq = null; // the FAQ editor

const typeOf = (file) => TYPES[file.name.split(".").pop().toLowerCase()] || file.type || "application/octet-stream";
const plural = (count, one, many) => `${count.toLocaleString()} ${count === 1 ? one : many}`;
const titleOf = (id) => documents.find((d) => d.id === id)?.title;

function meaning(document) {
  const waiting = document.vectorsPending;
  return waiting ? `meaning pending: ${plural(waiting, "passage", "passages")}` : "ready";
}

function card(document) {
  const what =
    document.kind === "faq"
      ? `FAQ · ${plural(document.faq.length, "pair", "pairs")}`
      : `${NAMES[document.mediaType] || document.mediaType} · ${plural(document.passages, "passage", "passages")}` +
        ` · ${plural(document.characters, "character", "characters")}`;
  const updated = new Date(document.updatedAt);
  return h(
    "li",
    { "data-document": document.id, "data-kind": document.kind },
    h("h3", {}, document.title),
    h("p", { className: "kind" }, what),
    h("p", { className: "meaning", "data-pending": String(document.vectorsPending) }, `Meaning: ${meaning(document)}`),
    h("p", { className: "muted" }, "Updated ", h("time", { datetime: document.updatedAt }, updated.toLocaleString())),
    document.url ? h("p", {}, "From ", webLink(document.url)) : null,
    h("button", { type: "button", onclick: () => openDocument(document) }, `Open ${document.title}`),
    document.kind === "faq"
      ? h("button", { type: "button", onclick: () => faq.edit(document.id) }, `Edit ${document.title}`)
      : null,
    document.url
      ? h("button", { type: "button", onclick: () => fetchAgain(document) }, `Fetch ${document.title} again`)
      : null,
    h("button", { type: "button", className: "danger", onclick: () => remove(document) }, `Delete ${document.title}`),
  );
}

async function load() {
  documents = await call("GET", base);
  const list = byId("document-list");
  list.replaceChildren(...documents.map(card));
  if (documents.length === 0) list.append(h("li", {}, "No document yet."));
  if (opened && !documents.some((d) => d.id === opened)) closePassages();
  clearTimeout(poll);
  if (documents.some((d) => d.vectorsPending)) poll = setTimeout(() => load().catch(() => null), MEANING_POLL_MS);
}

// The address a page was fetched from: a link only when it is http(s), as the API takes.
function webLink(url) {
  const web = /^https?:\/\//i.test(url);
  return web ? h("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, url) : h("code", {}, url);
}

async function fetchAgain(document) {
  try {
    const { changed } = await call("POST", `${base}/${document.id}/fetch`);
    await load();
    notice(changed ? `Fetched "${document.title}" again: its passages are new.` : `"${document.title}" is unchanged.`);
  } catch (error) {
    notice(error.message, "error");
  }
}

function passageItem(passage) {
  const where = [
    passage.heading.length ? h("span", { className: "heading-path" }, passage.heading.join(" › ")) : null,
    passage.page ? h("span", { className: "badge" }, `page ${passage.page}`) : null,
  ].filter(Boolean);
  return h(
    "li",
    { "data-passage": passage.id },
    where.length ? h("p", { className: "passage-where" }, where) : null,
    h("p", { className: "passage-text" }, passage.text),
  );
}

async function openDocument(document) {
  try {
    const passages = await call("GET", `${base}/${document.id}/passages`);
    opened = document.id;
    byId("passage-heading").textContent = `Passages of “${document.title}” (${passages.length})`;
    byId("passage-list").replaceChildren(...passages.map(passageItem));
    byId("passage-view").hidden = false;
    byId("passage-heading").scrollIntoView({ block: "nearest" });
  } catch (error) {
    notice(error.message, "error");
  }
}

function closePassages() {
  opened = null;
  byId("passage-view").hidden = true;
  byId("passage-list").replaceChildren();
}

function remove(document) {
  confirmThen(`Delete the document "${document.title}" and its passages?`, async () => {
    try {
      await call("DELETE", `${base}/${document.id}`);
      if (faq.editing() === document.id) faq.reset();
      await load();
      notice("Deleted.");
    } catch (error) {
      notice(error.message, "error");
    }
  });
}

// A write's outcome: the list read again and the form emptied, or the API's errors
// beside the fields they name.
async function write(form, send) {
  try {
    await send();
    clearErrors(form);
    form.reset();
    await load();
    notice("Saved.");
    return true;
  } catch (error) {
    showErrors(form, error);
    return false;
  }
}

// A chosen file names the title unless the user typed one.
let namedAfter = "";
function chosen(file) {
  const title = byId("upload-title");
  if (title.value.trim() && title.value !== namedAfter) return;
  namedAfter = file.name.replace(/\.[^.]+$/, "").slice(0, 200);
  title.value = namedAfter;
}

function startUpload() {
  const form = byId("upload-form");
  const input = byId("upload-file");
  let dropped = null;
  input.addEventListener("change", () => {
    dropped = null;
    if (input.files[0]) chosen(input.files[0]);
  });
  const zone = byId("drop-zone");
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    dropped = event.dataTransfer.files[0] || null;
    if (dropped) {
      chosen(dropped);
      notice(`Chosen: ${dropped.name}. Upload it with the button.`);
    }
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = dropped || input.files[0];
    if (!file) {
      notice("Choose a file first.", "error");
      input.focus();
      return;
    }
    const title = byId("upload-title").value.trim();
    const query = title ? `?title=${encodeURIComponent(title)}` : "";
    if (await write(form, () => call("POST", base + query, file, { type: typeOf(file) }))) dropped = null;
  });
}

export async function start() {
  const story = await call("GET", `/stories/${page.story}`);
  document.title = `Knowledge · ${story.name} · Parley console`;
  faq = startFaqEditor(base, load);
  await load();
  startUpload();
  byId("text-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const body = { title: byId("text-title").value.trim(), text: byId("text-body").value };
    write(event.target, () => call("POST", base, body));
  });
  byId("page-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const body = { title: byId("page-title").value.trim(), url: byId("page-url").value.trim() };
    write(event.target, () => call("POST", base, body));
  });
  startTry(page.story, titleOf);
}
