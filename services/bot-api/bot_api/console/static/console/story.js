// A story: its context tree, new interactions, root order, references and settings.
import { call, everything, file, page } from "./api.js";
import { startChat } from "./chat.js";
import { storyLanguages } from "./story_languages.js";
import { startVersions } from "./versions.js";
import { watchTests } from "./tests_summary.js";
import {
  byId, clearErrors, confirmThen, h, languageOptions, notice, saveFile, showErrors,
} from "./ui.js";

const storyPath = `/stories/${page.story}`;
let story;
let kinds = {};
let languages;
let chat;

function moveRoot(id, step) {
  const order = [...story.order];
  const from = order.indexOf(id);
  const to = from + step;
  if (to < 0 || to >= order.length) return;
  [order[from], order[to]] = [order[to], order[from]];
  save("PUT", storyPath, { name: story.name, description: story.description, order }, null);
}

function node(item, isRoot) {
  const summary = story.interactions[item.id];
  const kind = kinds[item.id];
  const label = h("a", { href: `/console/stories/${page.story}/interactions/${item.id}` }, summary.name);
  const row = h(
    "div",
    { className: "node" },
    label,
    kind !== "standard" ? h("span", { className: "badge" }, kind) : null,
    item.ref ? h("span", { className: "badge ref", title: "a reference" }, "↪ reference") : null,
  );
  if (isRoot) {
    row.append(
      h("button", { type: "button", "aria-label": `Move ${summary.name} up`, onclick: () => moveRoot(item.id, -1) }, "↑"),
      h("button", { type: "button", "aria-label": `Move ${summary.name} down`, onclick: () => moveRoot(item.id, 1) }, "↓"),
    );
  }
  const children = item.ref ? [] : item.childrens;
  return h(
    "li",
    { "data-interaction": item.id },
    row,
    children.length ? h("ul", {}, children.map((child) => node(child, false))) : null,
  );
}

function options(select, firstOption) {
  select.replaceChildren(
    ...(firstOption ? [firstOption] : []),
    ...story.order.concat(Object.keys(story.interactions).filter((id) => !story.order.includes(id)))
      .map((id) => h("option", { value: id }, story.interactions[id].name)),
  );
}

async function load() {
  [story, kinds] = await Promise.all([
    call("GET", storyPath),
    everything(`${storyPath}/interactions`).then((list) =>
      Object.fromEntries(list.map((item) => [item.id, item.type])),
    ),
  ]);
  document.title = `${story.name} · Parley console`;
  byId("story-title").textContent = story.name;
  byId("tree").replaceChildren(...story.story.map((item) => node(item, true)));
  options(byId("new-interaction-parent"), h("option", { value: "" }, "(a root)"));
  options(byId("reference-from"));
  options(byId("reference-to"));
  byId("story-name").value = story.name;
  byId("story-description").value = story.description;
  byId("story-confidence").value = story.settings.confidence;
  byId("story-lifespan").value = story.settings.lifespan;
  byId("story-fallback").checked = story.settings.fallback;
  languageOptions(byId("story-language"), story.settings.language);
  languages.set(story.settings.languages);
  chat.speaks(story.settings);
  byId("story-any-language").checked = story.settings.answerAnyLanguage;
  byId("story-generate-knowledge").checked = story.settings.generateKnowledgeAnswers;
  byId("story-timezone").value = story.settings.timezone;
  byId("story-history").checked = story.settings.history;
  byId("story-history-days").value = story.settings.historyDays;
  byId("story-redact").checked = story.settings.redact;
  byId("story-review-below").value = story.settings.reviewBelow ?? "";
  byId("story-handoff-return").value = story.settings.handoffReturnMessage;
  showMeaningPending(story.phrasesAwaitingMeaning ?? 0);
}

// Phrases whose sentence vectors have not landed are matched by their words alone:
// said while there are some, and read again until there are none (docs/console.md).
const MEANING_POLL_MS = 5000;
let meaningPoll = null;

function showMeaningPending(waiting) {
  const line = byId("meaning-pending");
  line.hidden = !waiting;
  line.textContent = waiting
    ? `${waiting} ${waiting === 1 ? "phrase waits" : "phrases wait"} for its meaning: ` +
      "matched by words alone until its sentence vector is stored."
    : "";
  clearTimeout(meaningPoll);
  if (waiting) {
    meaningPoll = setTimeout(async () => {
      const read = await call("GET", storyPath).catch(() => null);
      showMeaningPending(read ? read.phrasesAwaitingMeaning : waiting);
    }, MEANING_POLL_MS);
  }
}

async function save(method, path, body, form) {
  try {
    const answer = await call(method, path, body);
    if (form) clearErrors(form);
    await load();
    notice("Saved.");
    return answer;
  } catch (error) {
    if (form) showErrors(form, error);
    else notice(error.message, "error");
    return null;
  }
}

// The story's document (docs/import-export.md), as pizza.parley.json or pizza.parley.yaml.
async function exportStory(format) {
  try {
    const blob = await file(`${storyPath}/export?format=${format}`);
    const stem = story.name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "");
    saveFile(blob, `${stem || "story"}.parley.${format}`);
  } catch (error) {
    notice(`Not exported: ${error.message}`, "error");
  }
}

const numberOf = (input) => (input.value === "" ? undefined : Number(input.value));

export async function start() {
  languages = storyLanguages();
  chat = startChat(page.story);
  await load();
  await watchTests(page.story);
  byId("interaction-create").addEventListener("submit", async (event) => {
    event.preventDefault();
    const parent = byId("new-interaction-parent").value;
    const created = await save(
      "POST",
      `${storyPath}/interactions${parent ? `/${parent}` : ""}`,
      { name: byId("new-interaction-name").value },
      event.target,
    );
    if (created) location.assign(`/console/stories/${page.story}/interactions/${created.id}`);
  });
  byId("reference-add").addEventListener("submit", (event) => {
    event.preventDefault();
    const from = story.interactions[byId("reference-from").value];
    const to = byId("reference-to").value;
    const item = {
      id: from.id,
      root: from.root,
      contextOut: [...from.contextOut, to],
      references: [...from.references, to],
    };
    save("PUT", `${storyPath}/contexts`, [item], event.target);
  });
  byId("story-settings").addEventListener("submit", (event) => {
    event.preventDefault();
    const settings = {
      confidence: numberOf(byId("story-confidence")),
      lifespan: numberOf(byId("story-lifespan")),
      fallback: byId("story-fallback").checked,
      language: byId("story-language").value,
      languages: languages.read(),
      answerAnyLanguage: byId("story-any-language").checked,
      generateKnowledgeAnswers: byId("story-generate-knowledge").checked,
      timezone: byId("story-timezone").value.trim() || undefined,
      history: byId("story-history").checked,
      historyDays: numberOf(byId("story-history-days")),
      redact: byId("story-redact").checked,
      reviewBelow: byId("story-review-below").value === "" ? null : numberOf(byId("story-review-below")),
      handoffReturnMessage: byId("story-handoff-return").value,
    };
    const body = { name: byId("story-name").value, description: byId("story-description").value, settings };
    save("PUT", storyPath, body, event.target);
  });
  byId("story-export").addEventListener("submit", (event) => {
    event.preventDefault();
    exportStory(byId("export-format").value);
  });
  byId("story-delete").addEventListener("click", () =>
    confirmThen(`Delete the story "${story.name}" and all its interactions?`, async () => {
      await call("DELETE", storyPath);
      location.assign("/console/stories");
    }),
  );
  byId("timezones").replaceChildren(
    ...Intl.supportedValuesOf("timeZone").map((zone) => h("option", { value: zone })),
  );
  await startVersions(storyPath, load);
}
