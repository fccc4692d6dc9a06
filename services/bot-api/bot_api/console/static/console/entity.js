// An entity: its entries and synonyms; a delete refused names the interactions using it.
import { ApiError, call, everything, page } from "./api.js";
import { entityTranslations } from "./entity_translations.js";
import { languageAdder } from "./story_languages.js";
import { byId, clearErrors, commaList, confirmThen, h, notice, showErrors } from "./ui.js";

const path = `/entities/${page.entity}`;

function entryRow(entry) {
  const value = Object.assign(h("input", { "aria-label": "Value", placeholder: "value" }), { value: entry.value || "" });
  const synonyms = Object.assign(h("input", { "aria-label": "Synonyms, comma-separated", placeholder: "synonyms" }), {
    value: (entry.synonyms || []).map((s) => s.value).filter((s) => s !== entry.value).join(", "),
  });
  const row = h("div", { className: "entry" }, value, synonyms,
    h("button", { type: "button", className: "danger", onclick: () => row.remove() }, "Remove"));
  row.value = () => value.value.trim();
  row.read = (index) => {
    value.dataset.field = `entries.${index}.value`;
    synonyms.dataset.field = `entries.${index}.synonyms`;
    const own = value.value.trim();
    const others = commaList(synonyms.value).filter((s) => s !== own);
    return { value: own, synonyms: [own, ...others].map((s) => ({ value: s })) };
  };
  return row;
}

// "Story / Interaction" of each id, found through the stories of the account.
async function namesOf(ids) {
  const names = {};
  for (const story of await everything("/stories")) {
    for (const item of await everything(`/stories/${story.id}/interactions`)) {
      if (ids.includes(item.id)) names[item.id] = { story, item };
    }
  }
  return ids.map((id) =>
    names[id]
      ? h("li", {}, h("a", { href: `/console/stories/${names[id].story.id}/interactions/${id}` },
          `${names[id].story.name} / ${names[id].item.name}`))
      : h("li", {}, id),
  );
}

export async function start() {
  const entity = await call("GET", path);
  const languages = entityTranslations(() => [...byId("entries").children]);
  const fill = (read) => {
    byId("entity-title").textContent = read.name;
    byId("entity-name").value = read.name;
    byId("entries").replaceChildren(...read.entries.map(entryRow));
    languages.set(read.translations);
  };
  fill(entity);
  languageAdder("entity-language", languages.open);
  byId("add-entry").addEventListener("click", () => {
    byId("entries").append(entryRow({}));
    byId("entries").lastElementChild.querySelector("input").focus();
  });
  const form = byId("entity-form");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {
      name: byId("entity-name").value,
      entries: [...byId("entries").children].map((row, index) => row.read(index)),
      translations: languages.read(), // a PUT replaces the entity: its languages are sent too
    };
    try {
      await call("PUT", path, body);
      clearErrors(form);
      fill(await call("GET", path));
      notice("Saved.");
    } catch (error) {
      showErrors(form, error);
    }
  });
  byId("entity-delete").addEventListener("click", () =>
    confirmThen(`Delete the entity "${entity.name}"?`, async () => {
      try {
        await call("DELETE", path);
        location.assign("/console/entities");
      } catch (error) {
        const blocking = error instanceof ApiError ? error.body?.status?.errors?.interactions : null;
        if (!blocking) return notice(error.message, "error");
        byId("entity-form").querySelector('[data-error-for="interactions"]').replaceChildren(
          h("p", {}, "It cannot be deleted: these interactions use it."),
          h("ul", {}, await namesOf(blocking)),
        );
      }
    }),
  );
}
