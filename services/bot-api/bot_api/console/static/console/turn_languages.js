// The languages a story speaks, for the pages that show each turn's language and filter by
// it (History, the misses inbox; docs/languages.md). Only a story with further languages has
// them to show: a story of one language's pages stay as they were.
import { call, page } from "./api.js";
import { h, languageLabel, languageTag } from "./ui.js";

// The story's languages as ISO 639-1 codes, its default first; none for a story of one.
export async function storyLanguages() {
  const { settings } = await call("GET", `/stories/${page.story}`);
  if (!settings.languages.length) return [];
  const first = languageTag(settings.language);
  return [first, ...settings.languages.filter((code) => code !== first)];
}

// Fills a filter's select with "Any" and each language, and shows its box (hidden in the
// page until the story is known to have further languages).
export function languageFilter(select, codes) {
  select.replaceChildren(
    h("option", { value: "" }, "Any"),
    ...codes.map((code) => h("option", { value: code }, languageLabel(code))),
  );
  select.closest("[data-languages]").hidden = false;
}

// A language's tag: its code, its name for whoever hovers or reads it aloud.
export const languageBadge = (code, text = code) =>
  h("span", { className: "badge", "data-language": code, title: languageLabel(code) }, text);
