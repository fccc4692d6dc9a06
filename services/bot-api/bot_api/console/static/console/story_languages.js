// A story's further languages (settings.languages), each shown by its name with a button
// that removes it. A language is added by its ISO 639-1 code or its name as typed: the API
// reads it and says what it refuses (an unknown code, a language listed twice) beside it.
import { byId, h, languageCodes, languageLabel } from "./ui.js";

export function storyLanguages() {
  const list = byId("story-languages");
  const input = byId("story-language-add");
  let codes = [];

  function draw() {
    list.replaceChildren(
      ...codes.map((code, index) => {
        const label = languageLabel(code);
        return h("li", { "data-field": `settings.languages.${index}` }, label,
          h("button", { type: "button", className: "danger", onclick: () => remove(index) }, `Remove ${label}`));
      }),
    );
    byId("story-languages-none").hidden = codes.length > 0;
  }

  function remove(index) {
    codes.splice(index, 1);
    draw();
  }

  function add() {
    const given = input.value.trim();
    if (!given) return;
    codes.push(given);
    input.value = "";
    draw();
  }

  byId("story-language-codes").replaceChildren(
    ...languageCodes().map((code) => h("option", { value: code }, languageLabel(code))),
  );
  byId("story-language-add-button").addEventListener("click", add);
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault(); // adds the language, does not save the settings
    add();
  });
  return {
    set(given) {
      codes = [...given];
      draw();
    },
    read: () => [...codes],
  };
}
