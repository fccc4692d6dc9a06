// The Import page: a story from a file (docs/import-export.md), with a dry run that writes
// nothing, and the report of what the import makes, reuses and leaves out.
import { ApiError, call } from "./api.js";
import { byId, h } from "./ui.js";

const TYPES = {
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  zip: "application/zip",
};
const SOURCES = { parley: "a Parley document", dialogflow: "a Dialogflow ES agent", rasa: "a Rasa project" };
const REFUSED = {
  409: "another import of this account is under way; try again when it has finished.",
  413: "the file is larger than the service takes.",
};

// Of a folder, the files a bot is made of (an agent's, a project's, a git layout's), not a
// clone's or a trained model's: a Rasa project's models/*.tar.gz alone passes the body limit.
const BOT_FILE = /\.(json|ya?ml)$/i;
const HIDDEN = /(^|\/)\./;

const typeOf = (name) => (name.includes(".") ? TYPES[name.split(".").pop().toLowerCase()] : "") || "";
const plural = (count, one, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

function status(text, kind = "info") {
  byId("import-status").textContent = text;
  byId("import-status").dataset.kind = kind;
}

const cellsRow = (cells) => h("tr", {}, cells.map((cell) => h("td", {}, cell)));

// A table under its heading (`total`: its count), in a box that scrolls (by keyboard too)
// when it is long; `bodies`: its tbody elements.
function boxed(title, headers, total, bodies, empty) {
  const id = `report-${title.toLowerCase().replace(/\W+/g, "-")}`;
  const heading = h("h3", { id }, `${title} (${total})`);
  if (!bodies.length) return [heading, h("p", { className: "muted" }, empty)];
  return [
    heading,
    h(
      "div",
      { className: "table-box", role: "region", "aria-labelledby": id, tabindex: "0" },
      h(
        "table",
        { className: "report-table" },
        h("thead", {}, h("tr", {}, headers.map((name) => h("th", { scope: "col" }, name)))),
        bodies,
      ),
    ),
  ];
}

const table = (title, headers, rows, empty) =>
  boxed(title, headers, rows.length, rows.length ? [h("tbody", {}, rows.map(cellsRow))] : [], empty);

// Rows grouped by reason: each group a row heading "count × reason", its rows below.
function grouped(title, headers, groups, empty) {
  const total = groups.reduce((sum, group) => sum + group.count, 0);
  const bodies = groups.map(({ count, reason, rows }) =>
    h(
      "tbody",
      {},
      h("tr", {}, h("th", { scope: "rowgroup", colSpan: String(headers.length) }, `${count} × ${reason}`)),
      rows.map(cellsRow),
    ));
  return boxed(title, headers, total, bodies, empty);
}

const pair = (name, value) => [h("dt", {}, name), h("dd", {}, value)];

function report({ id, report: r }) {
  const story = id ? `/console/stories/${id}` : "";
  const names = Object.fromEntries(r.interactions.map((item) => [item.key, item.name]));
  const ids = Object.fromEntries(r.interactions.map((item) => [item.key, item.id]));
  const interaction = (item) =>
    story && ids[item.key]
      ? h("a", { href: `${story}/interactions/${ids[item.key]}` }, item.name)
      : item.name;
  const silent = r.silent.byReason.map((group) => ({
    ...group,
    rows: group.interactions.map((item) => [item.key, interaction(item)]),
  }));
  const leftOut = r.unmappedByReason.map((group) => ({
    ...group,
    rows: group.rows.map((row) => [row.place, row.element]),
  }));
  return [
    h("h2", {}, r.dryRun ? "Dry run: nothing was written" : "Imported"),
    story ? h("p", {}, h("a", { href: story, id: "imported-story" }, `Open the story ${r.name}`)) : null,
    h(
      "dl",
      { className: "pairs" },
      pair("Source", SOURCES[r.source] || r.source),
      pair("Name", r.name),
      pair("Language", r.language),
      pair("Interactions", String(r.interactions.length)),
      pair("Phrases", String(r.phrases)),
      pair("Defaults added", r.added.length ? r.added.join(", ") : "none"),
    ),
    grouped(
      "Answering nothing of their own",
      ["Key", "Name"],
      silent,
      "None: every interaction has a response or a webhook.",
    ),
    table("Interactions", ["Key", "Name"], r.interactions.map((item) => [item.key, interaction(item)]), "None."),
    table(
      "Entities",
      ["Name", "Status", "Stored as", "Detail"],
      r.entities.map((entity) => [entity.name, entity.status, entity.storedAs, entity.detail]),
      "The story uses no entity of the account.",
    ),
    table(
      "Connections to make",
      ["Name", "Called by"],
      r.connections.map((c) => [c.name, c.interactions.map((key) => names[key] || key).join(", ")]),
      "None: no interaction calls a webhook connection.",
    ),
    r.connections.length
      ? h("p", { className: "muted" }, "Until a connection of that name is made on the story's ",
        story ? h("a", { href: `${story}/connections` }, "Webhook connections") : "Webhook connections",
        " page, these interactions call no webhook.")
      : null,
    grouped("Left out", ["Place", "Element"], leftOut, "Nothing: every element was read."),
  ]
    .flat()
    .filter((node) => node);
}

function summary({ report: r }) {
  const counts = `${plural(r.interactions.length, "interaction")}, ${plural(r.phrases, "phrase")}, `
    + `${r.silent.count} answering nothing, ${plural(r.unmapped.length, "element")} left out`;
  return r.dryRun
    ? `Dry run of ${r.name}: ${counts}. Nothing was written.`
    : `Imported ${r.name}: ${counts}.`;
}

const step = (path, name) => {
  if (name === "_schema") return path;
  if (/^\d+$/.test(name)) return `${path}[${name}]`;
  return path ? `${path}.${name}` : name;
};

// Every message of the API's error tree with its path: ["interactions[3].userSays[0]", "…"].
function problems(tree, path = "") {
  if (Array.isArray(tree)) {
    return tree.flatMap((item) => (typeof item === "string" ? [[path, item]] : problems(item, path)));
  }
  if (tree && typeof tree === "object") {
    return Object.entries(tree).flatMap(([name, value]) => problems(value, step(path, name)));
  }
  return [[path, String(tree)]];
}

function refusal(error) {
  const errors = error.body?.status?.errors;
  if (error.status !== 400 || !errors || !Object.keys(errors).length) {
    status(`The file cannot be imported: ${REFUSED[error.status] || error.message}`, "error");
    return [];
  }
  const found = problems(errors);
  const more = Number(/\(and (\d+) more errors\)$/.exec(error.message)?.[1] || 0);
  const listed = more ? `the first ${found.length} are listed below` : "listed below";
  status(`The file cannot be imported: ${plural(found.length + more, "problem")}, ${listed}.`, "error");
  return [
    h("h2", { id: "import-problems" }, "Problems"),
    h(
      "div",
      { className: "table-box", role: "region", "aria-labelledby": "import-problems", tabindex: "0" },
      h("ul", { className: "problems" },
        found.map(([path, message]) => h("li", {}, h("code", {}, path || "the file"), `: ${message}`))),
    ),
  ];
}

// What the form sends: a file as it is, or a folder's bot files as a form, each named by
// its path in the folder; and the name a bot that names itself nowhere takes.
function chosenUpload() {
  const folder = [...byId("import-folder").files];
  if (folder.length) {
    const top = folder[0].webkitRelativePath.split("/")[0];
    const form = new FormData();
    for (const file of folder) {
      const path = file.webkitRelativePath.slice(top.length + 1);
      if (BOT_FILE.test(path) && !HIDDEN.test(path)) form.append("files", file, path);
    }
    return { label: top, body: form, name: top, empty: !form.has("files") };
  }
  const chosen = byId("import-file").files[0];
  if (!chosen) return null;
  const type = typeOf(chosen.name);
  const name = type === TYPES.zip ? chosen.name.replace(/\.zip$/i, "") : "";
  return { label: chosen.name, body: chosen, type, name, empty: false };
}

async function upload(event) {
  event.preventDefault();
  const dryRun = event.submitter?.value !== "import";
  const chosen = chosenUpload();
  if (!chosen || chosen.empty || (chosen.type !== undefined && !chosen.type)) {
    const input = byId("import-file");
    status(
      !chosen
        ? "Choose a file or a folder to import."
        : chosen.empty
          ? "The folder holds no .json, .yaml or .yml file."
          : "Choose a .json, .yaml, .yml or .zip file.",
      "error",
    );
    (chosen?.empty ? byId("import-folder") : input).focus();
    return;
  }
  const buttons = event.target.querySelectorAll("button");
  buttons.forEach((button) => (button.disabled = true));
  byId("import-report").replaceChildren();
  status(dryRun ? `Reading ${chosen.label}…` : `Importing ${chosen.label}…`);
  const query = new URLSearchParams();
  if (dryRun) query.set("dryRun", "true");
  if (chosen.name) query.set("name", chosen.name);
  const path = `/stories/import${query.size ? `?${query}` : ""}`;
  try {
    const answer = await call("POST", path, chosen.body, chosen.type ? { type: chosen.type } : {});
    byId("import-report").replaceChildren(...report(answer));
    status(summary(answer));
  } catch (error) {
    const refused = error instanceof ApiError ? error : { message: `the upload failed (${error.message}).` };
    byId("import-report").replaceChildren(...refusal(refused));
  } finally {
    buttons.forEach((button) => (button.disabled = false));
  }
}

export async function start() {
  byId("import-form").addEventListener("submit", upload);
  // One source at a time: choosing a file forgets the folder, and the other way round.
  const inputs = [byId("import-file"), byId("import-folder")];
  inputs.forEach((input, index) =>
    input.addEventListener("change", () => {
      inputs[1 - index].value = "";
      status("");
      byId("import-report").replaceChildren();
    }));
}
