// An interaction in its story's further languages: a tab each beside the default's, with
// that language's phrases, parameter prompts and responses (docs/console.md "Languages").
// What a language leaves empty is said as in the default language and marked "missing";
// a tab left empty removes the language's variant.
import { responseEditor } from "./responses.js";
import { tabs } from "./tabs.js";
import { byId, counted, h, itemList, languageLabel, languageTag, linesOf, showPhrases, textBox } from "./ui.js";

const missingNote = (text) => h("p", { className: "missing-note", hidden: true }, text);

// A parameter's prompts, edited one by one (a prompt keeps its newlines), in `lang`.
export function promptList(path, values, lang) {
  return itemList(path, values, {
    one: "prompt", many: "prompts", max: 99, blank: "",
    make: (prompt, at, number) => {
      const control = textBox(prompt, { lang, "aria-label": `Prompt ${number}`, placeholder: "What is its value?", "data-field": at });
      return { node: counted(control, 1024), read: () => control.value };
    },
  });
}

// The prompts of the default's parameters in one language, a list per alias. A parameter
// is listed when the default asks for it or this language has prompts for it.
function promptLists(container, at, code) {
  let said = {}; // alias -> this language's prompts, as last drawn or read
  let shown = []; // [{ alias, list }]
  const current = (alias) => shown.find((group) => group.alias === alias)?.list.read() ?? said[alias] ?? [];
  const keep = () => shown.forEach((group) => (said[group.alias] = group.list.read()));

  // `path(alias, index)`: where the API's errors name the alias's prompts.
  function draw(parameters, path) {
    keep();
    const listed = parameters.filter((p) => p.alias && (p.prompts.length || (said[p.alias] || []).length));
    shown = listed.map((p, index) => ({ alias: p.alias, list: promptList(path(p.alias, index), said[p.alias] || [], code) }));
    container.replaceChildren(
      ...shown.map((group) => {
        group.list.node.setAttribute("role", "group");
        group.list.node.setAttribute("aria-label", `Prompts for ${group.alias}`);
        return h("div", { className: "row" }, h("span", { className: "label" }, group.alias), group.list.node);
      }),
    );
    if (!shown.length) container.append(h("p", { className: "muted" }, "No parameter asks for its value."));
  }

  const inPlace = (alias, index) => `${at}.${index}.prompts`;
  return {
    set(parameters, translated) {
      said = Object.fromEntries(translated.map((p) => [p.alias, p.prompts]));
      shown = []; // drawn afresh, not kept from the lists before
      draw(parameters, inPlace);
    },
    draw: (parameters) => draw(parameters, inPlace),
    // The prompts as the API takes them, drawn again so an error names the list it is about.
    read(parameters) {
      keep();
      const sent = parameters.filter((p) => (said[p.alias] || []).length).map((p) => p.alias);
      draw(parameters, (alias) => (sent.includes(alias) ? `${at}.${sent.indexOf(alias)}.prompts` : `${at}.${alias}`));
      return sent.map((alias) => ({ alias, prompts: said[alias] }));
    },
    lacking: (parameters) => parameters.filter((p) => p.prompts.length && !current(p.alias).length).map((p) => p.alias),
  };
}

function languagePanel(code, connections, typeOptions) {
  const at = `translations.${code}`;
  const name = languageLabel(code);
  const phrases = h("textarea", { id: `t-${code}-usersays`, "data-field": `${at}.userSays`, rows: 5, lang: code });
  const phrasesShown = h("div", { className: "phrases", "aria-label": `Phrases in ${name} with their parameters highlighted` });
  phrases.addEventListener("input", () => showPhrases(phrases, phrasesShown));
  const phrasesMissing = missingNote("Missing: the default language's phrases are read in its place.");
  const prompts = h("div", {});
  const promptsMissing = missingNote("");
  const prompted = promptLists(prompts, `${at}.parameters`, code);
  const blocks = h("div", {});
  const responses = responseEditor(blocks, code, connections, `${at}.responses`);
  const responsesMissing = missingNote("Missing: the default language's responses are said in its place.");
  const type = h("select", { id: `t-${code}-new-response-type` }, typeOptions.map((option) => option.cloneNode(true)));
  const node = h("div", { id: `t-${code}`, "data-field": at, hidden: true },
    h("label", { for: phrases.id }, `User says in ${name} (one phrase a line)`), phrasesMissing, phrases, phrasesShown,
    h("fieldset", { "data-field": `${at}.parameters` }, h("legend", {}, `Prompts in ${name}`), promptsMissing, prompts),
    h("fieldset", { "data-field": `${at}.responses` }, h("legend", {}, `Responses in ${name}`), responsesMissing, blocks,
      h("label", { for: type.id }, "Add a response"), type,
      h("button", { type: "button", onclick: () => responses.add(type.value) }, "Add")));
  return {
    code,
    node,
    set(translation, parameters) {
      phrases.value = (translation?.userSays || []).join("\n");
      showPhrases(phrases, phrasesShown);
      prompted.set(parameters, translation?.parameters || []);
      responses.set(translation?.responses || []);
    },
    showPrompts: (parameters) => prompted.draw(parameters),
    // Whether something the default language has is missing here; each missing field noted.
    lacks(defaults) {
      phrasesMissing.hidden = !(defaults.userSays.length && !linesOf(phrases.value).length);
      responsesMissing.hidden = !(defaults.responses.length && !responses.read().length);
      const aliases = prompted.lacking(defaults.parameters);
      promptsMissing.hidden = !aliases.length;
      promptsMissing.textContent = `Missing: ${aliases.join(", ")} ${aliases.length === 1 ? "is" : "are"} asked for in the default language.`;
      return [phrasesMissing, responsesMissing, promptsMissing].some((note) => !note.hidden);
    },
    // The variant as the API takes it; null when the tab is empty.
    read(parameters) {
      const variant = { userSays: linesOf(phrases.value), parameters: prompted.read(parameters), responses: responses.read() };
      return Object.values(variant).some((field) => field.length) ? variant : null;
    },
  };
}

// The tabs of a story with further languages, null for a story of one language (whose
// editor stays as it was). `defaults()`: the default tab's { userSays, parameters:
// [{ alias, prompts }], responses } as they stand, against which a language lacks a field.
export function translationTabs(story, connections, defaults) {
  const main = languageTag(story.settings.language);
  const codes = story.settings.languages.filter((code) => code !== main);
  if (!codes.length) return null;
  const typeOptions = [...byId("new-response-type").options];
  const panels = codes.map((code) => languagePanel(code, connections, typeOptions));
  const bar = tabs(byId("language-tabs"), (index) => index && panels[index - 1].showPrompts(defaults().parameters));
  bar.add(`${languageLabel(main)}, default`, byId("default-language"));
  for (const panel of panels) {
    byId("translations").append(panel.node);
    bar.add(languageLabel(panel.code), panel.node);
  }
  const refresh = () => {
    const now = defaults();
    panels.forEach((panel, index) => bar.mark(index + 1, panel.lacks(now)));
  };
  ["input", "click"].forEach((kind) => byId("interaction-form").addEventListener(kind, refresh));
  let others = {}; // variants in languages the story no longer lists: kept as they are
  return {
    set(translations = {}) {
      others = { ...translations };
      const { parameters } = defaults();
      panels.forEach((panel) => {
        panel.set(translations[panel.code], parameters);
        delete others[panel.code];
      });
      refresh();
    },
    read() {
      const { parameters } = defaults();
      const variants = panels.map((panel) => [panel.code, panel.read(parameters)]).filter(([, variant]) => variant);
      return { ...others, ...Object.fromEntries(variants) };
    },
  };
}
