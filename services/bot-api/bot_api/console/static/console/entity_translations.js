// An entity's entries in further languages (docs/console.md "Languages"): a tab each
// beside the default entries, with a synonyms box for each default entry (its value stays
// the default's: it fills the parameter). A language with entries reads only its own, so
// an entry without synonyms in it is marked missing; a language with none reads the
// default entries. The languages are the entity's own and those added on the page: the
// API keeps an entity's translations by language code, whichever stories use them.
import { tabs } from "./tabs.js";
import { byId, commaList, h, languageCode, languageLabel } from "./ui.js";

const synonymsOf = (text) => commaList(text || "").map((value) => ({ value }));

// `rows()`: the default entry rows as they stand, each with `value()`.
function languagePanel(code, index, rows) {
  const name = languageLabel(code);
  const said = new WeakMap(); // default row -> its synonyms in this language, as typed
  let others = []; // [{ value, text }]: entries of this language with no default of their value
  const lines = h("div", {});
  const note = h("p", { className: "missing-note", hidden: true });
  const clear = h("button", { type: "button", className: "danger" }, `Remove ${name}`);
  const node = h("div", { id: `entity-language-${index}`, "data-field": `translations.${code}`, hidden: true },
    h("fieldset", {}, h("legend", {}, `Synonyms in ${name} (comma-separated)`), note, lines), clear);
  const listed = () => rows().filter((row) => row.value());
  const lacking = () => listed().filter((row) => !synonymsOf(said.get(row)).length);

  // One line: the value, its synonyms in this language and, when it has none, "missing".
  function line(value, text, keep) {
    const input = Object.assign(h("input", { lang: code, "aria-label": `Synonyms of ${value} in ${name}` }), { value: text || "" });
    const badge = h("span", { className: "badge missing" }, "missing");
    const show = () => (badge.hidden = synonymsOf(input.value).length > 0);
    input.addEventListener("input", () => {
      keep(input.value);
      show();
    });
    show();
    const node = h("div", { className: "entry translated" }, h("span", {}, value), input, badge);
    return { node, input, filled: () => synonymsOf(input.value).length > 0 };
  }

  function draw() {
    const drawn = [
      ...listed().map((row) => line(row.value(), said.get(row), (text) => said.set(row, text))),
      ...others.map((other) => line(other.value, other.text, (text) => (other.text = text))),
    ];
    lines.replaceChildren(...drawn.map((drawnLine) => drawnLine.node));
    return drawn;
  }

  clear.addEventListener("click", () => {
    listed().forEach((row) => said.delete(row));
    others = [];
    draw();
  });

  return {
    code,
    node,
    draw,
    set(entries) {
      const byValue = new Map(rows().map((row) => [row.value(), row]));
      others = [];
      for (const entry of entries) {
        const text = entry.synonyms.map((synonym) => synonym.value).join(", ");
        if (byValue.has(entry.value)) said.set(byValue.get(entry.value), text);
        else others.push({ value: entry.value, text });
      }
      draw();
    },
    // Whether an entry lacks synonyms here; the note says what that does.
    lacks() {
      const some = listed().length - lacking().length > 0 || others.some((other) => synonymsOf(other.text).length);
      note.hidden = !lacking().length;
      note.textContent = some
        ? `The entries marked missing are not recognised in ${name}: a language with entries reads only its own.`
        : `Missing: none has synonyms in ${name}, so the default entries are read in it.`;
      return !note.hidden;
    },
    // The entries as the API takes them, each line named by its place among them.
    read() {
      const values = [...listed().map((row) => row.value()), ...others.map((other) => other.value)];
      const entries = [];
      draw().forEach((drawnLine, at) => {
        drawnLine.node.removeAttribute("data-field");
        drawnLine.input.removeAttribute("data-field");
        if (!drawnLine.filled()) return;
        drawnLine.node.dataset.field = `translations.${code}.${entries.length}`;
        drawnLine.input.dataset.field = `translations.${code}.${entries.length}.synonyms`;
        entries.push({ value: values[at], synonyms: synonymsOf(drawnLine.input.value) });
      });
      return entries;
    },
  };
}

export function entityTranslations(rows) {
  const panels = [];
  const bar = tabs(byId("language-tabs"), (index) => index && panels[index - 1].draw());
  const refresh = () => panels.forEach((panel, index) => bar.mark(index + 1, panel.lacks()));
  ["input", "click"].forEach((kind) => byId("entity-form").addEventListener(kind, refresh));

  function add(code, entries = []) {
    if (!panels.length) bar.add("Default language", byId("default-language")); // tabs from the first language on
    const panel = languagePanel(code, panels.length, rows);
    panels.push(panel);
    byId("translations").append(panel.node);
    panel.set(entries);
    return bar.add(languageLabel(code), panel.node);
  }

  return {
    set(translations = {}) {
      panels.forEach((panel) => panel.set(translations[panel.code] || []));
      const known = panels.map((panel) => panel.code);
      Object.entries(translations).filter(([code]) => !known.includes(code)).forEach(([code, entries]) => add(code, entries));
      refresh();
    },
    // A language typed on the page: its tab, made empty if it has none.
    open(given) {
      const code = languageCode(given);
      const at = panels.findIndex((panel) => panel.code === code);
      bar.select(at >= 0 ? at + 1 : add(code));
      refresh();
    },
    read() {
      const variants = panels.map((panel) => [panel.code, panel.read()]).filter(([, entries]) => entries.length);
      return Object.fromEntries(variants);
    },
  };
}
