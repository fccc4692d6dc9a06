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

const typeOf = (name) => (name.includes(".") ? TYPES[name.split(".").pop().toLowerCase()] : "") || "";
const plural = (count, one, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

function status(text, kind = "info") {
  byId("import-status").textContent = text;
  byId("import-status").dataset.kind = kind;
}

// A table under its heading, in a box that scrolls (by keyboard too) when it is long.
function table(title, headers, rows, empty) {
  const id = `report-${title.toLowerCase().replace(/\W+/g, "-")}`;
  const heading = h("h3", { id }, `${title} (${rows.length})`);
  if (!rows.length) return [heading, h("p", { className: "muted" }, empty)];
  return [
    heading,
    h(
      "div",
      { className: "table-box", role: "region", "aria-labelledby": id, tabindex: "0" },
      h(
        "table",
        { className: "report-table" },
        h("thead", {}, h("tr", {}, headers.map((name) => h("th", { scope: "col" }, name)))),
        h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((cell) => h("td", {}, cell))))),
      ),
    ),
  ];
}

const pair = (name, value) => [h("dt", {}, name), h("dd", {}, value)];

function report({ id, report: r }) {
  const story = id ? `/console/stories/${id}` : "";
  const names = Object.fromEntries(r.interactions.map((item) => [item.key, item.name]));
  const interaction = (item) =>
    story && item.id ? h("a", { href: `${story}/interactions/${item.id}` }, item.name) : item.name;
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
    table("Interactions", ["Key", "Name"], r.interactions.map((item) => [item.key, interaction(item)]), "None."),
    table(
      "Entities",
      ["Name", "Status", "Detail"],
      r.entities.map((entity) => [entity.name, entity.status, entity.detail]),
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
    table(
      "Left out",
      ["Place", "Element", "Reason"],
      r.unmapped.map((item) => [item.place, item.element, item.reason]),
      "Nothing: every element was read.",
    ),
  ]
    .flat()
    .filter((node) => node);
}

function summary({ report: r }) {
  const counts = `${plural(r.interactions.length, "interaction")}, ${plural(r.phrases, "phrase")}, `
    + `${plural(r.unmapped.length, "element")} left out`;
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

async function upload(event) {
  event.preventDefault();
  const dryRun = event.submitter?.value !== "import";
  const input = byId("import-file");
  const chosen = input.files[0];
  const type = chosen ? typeOf(chosen.name) : "";
  if (!type) {
    status(chosen ? "Choose a .json, .yaml, .yml or .zip file." : "Choose a file to import.", "error");
    input.focus();
    return;
  }
  const buttons = event.target.querySelectorAll("button");
  buttons.forEach((button) => (button.disabled = true));
  byId("import-report").replaceChildren();
  status(dryRun ? `Reading ${chosen.name}…` : `Importing ${chosen.name}…`);
  try {
    const answer = await call("POST", `/stories/import${dryRun ? "?dryRun=true" : ""}`, chosen, { type });
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
  byId("import-file").addEventListener("change", () => {
    status("");
    byId("import-report").replaceChildren();
  });
}
