// A story's further languages (settings.languages), each shown by its name with a button
// that removes it. A language is added by its ISO 639-1 code or its name as typed: the API
// reads it and says what it refuses (an unknown code, a language listed twice) below the
// list, counted as a person counts ("language 2: ...").
import { byId, h, languageCodes, languageLabel } from "./ui.js";

export function storyLanguages() {
  const list = byId("story-languages");
  let codes = [];

  function draw() {
    list.replaceChildren(
      ...codes.map((code, index) => {
        const label = languageLabel(code);
        return h("li", {}, label,
          h("button", { type: "button", className: "danger", onclick: () => remove(index) }, `Remove ${label}`));
      }),
    );
    byId("story-languages-none").hidden = codes.length > 0;
  }

  function remove(index) {
    codes.splice(index, 1);
    draw();
  }

  languageAdder("story-language", (given) => {
    codes.push(given);
    draw();
  });
  return {
    set(given) {
      codes = [...given];
      draw();
    },
    read: () => [...codes],
  };
}

// The input `${prefix}-add`, its button and datalist (`${prefix}-codes`): `add(given)`
// takes the code or name typed, on the button or on Enter (which then saves nothing).
export function languageAdder(prefix, add) {
  const input = byId(`${prefix}-add`);
  const take = () => {
    const given = input.value.trim();
    input.value = "";
    if (given) add(given);
  };
  byId(`${prefix}-codes`).replaceChildren(
    ...languageCodes().map((code) => h("option", { value: code }, languageLabel(code))),
  );
  byId(`${prefix}-add-button`).addEventListener("click", take);
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    take();
  });
}
