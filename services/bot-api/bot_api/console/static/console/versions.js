// A story's versions (docs/versions.md): freeze with a note, the list with the published
// one marked, the diff with the draft, restore into the draft, publish and unpublish.
import { ApiError, call, everything } from "./api.js";
import { byId, confirmThen, h, notice } from "./ui.js";

let storyPath;
let reloadStory;

const when = (iso) => new Date(iso).toLocaleString();

// Publishing is a setting of the story: PUT with its name and description as they are.
async function publish(versionId, force = false) {
  const story = await call("GET", storyPath);
  const body = { name: story.name, description: story.description, settings: { published: versionId } };
  if (force) body.force = true;
  try {
    await call("PUT", storyPath, body);
  } catch (error) {
    // 409: the story's conversation tests fail on this version
    if (error instanceof ApiError && error.status === 409 && !force) {
      confirmThen(`${error.message}\n\nPublish it anyway?`, () => publish(versionId, true));
      return;
    }
    notice(`Not published: ${error.message}`, "error");
    return;
  }
  notice(versionId ? "Published: the public key answers from this version." : "Unpublished: the draft answers everyone.");
  await load();
}

function list(title, items) {
  if (!items.length) return null;
  return h("div", {}, h("h4", {}, title), h("ul", {}, items.map((item) => h("li", {}, item))));
}

function phrases(change) {
  const parts = [];
  if (change.phrasesAdded.length) parts.push(`+ ${change.phrasesAdded.map((p) => `“${p}”`).join(", ")}`);
  if (change.phrasesRemoved.length) parts.push(`− ${change.phrasesRemoved.map((p) => `“${p}”`).join(", ")}`);
  return parts.length ? ` (${parts.join("; ")})` : "";
}

// Each changed field of an interaction, before and after, as the story document holds it.
function values(change) {
  const shown = (value) => h("pre", { className: "diff-value" }, value === null ? "(none)" : JSON.stringify(value, null, 2));
  return change.changes.map((field) =>
    h("table", { className: "diff-field" },
      h("caption", {}, field.name),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Before"), h("th", { scope: "col" }, "After"))),
      h("tbody", {}, h("tr", {}, h("td", {}, shown(field.from)), h("td", {}, shown(field.to))))));
}

async function showDiff(version) {
  const found = await call("GET", `${storyPath}/versions/${version.id}/diff?to=draft`);
  const { interactions, settings, entities } = found;
  const parts = [
    list("Interactions added", interactions.added.map((i) => i.name)),
    list("Interactions removed", interactions.removed.map((i) => i.name)),
    list("Interactions changed", interactions.changed.map((i) =>
      h("div", {}, `${i.name}: ${i.fields.join(", ")}${phrases(i)}`, ...values(i)))),
    list("Settings changed", settings.map((s) => `${s.name}: ${JSON.stringify(s.from)} → ${JSON.stringify(s.to)}`)),
    list("Entities added", entities.added),
    list("Entities removed", entities.removed),
    list("Entities changed", entities.changed.map((e) =>
      `${e.name}: ${[...e.entriesAdded.map((v) => `+ ${v}`), ...e.entriesRemoved.map((v) => `− ${v}`), ...e.entriesChanged.map((v) => `~ ${v}`)].join(", ")}`)),
  ].filter(Boolean);
  byId("diff-heading").textContent = `Version ${version.number} → the draft`;
  byId("diff-body").replaceChildren(...(parts.length ? parts : [h("p", { className: "muted" }, "No difference.")]));
  byId("version-diff").hidden = false;
}

function row(version) {
  const label = `Version ${version.number}`;
  return h(
    "li",
    { "data-version": version.id },
    h("span", {}, `${label} · ${when(version.createdAt)}${version.note ? ` · ${version.note}` : ""}`),
    version.published ? h("span", { className: "badge" }, "published") : null,
    h("button", { type: "button", "aria-label": `Diff ${label} with the draft`, onclick: () => showDiff(version) }, "Diff with draft"),
    version.published
      ? h("button", { type: "button", "aria-label": `Unpublish ${label}`, onclick: () => publish(null) }, "Unpublish")
      : h("button", { type: "button", "aria-label": `Publish ${label}`, onclick: () => publish(version.id) }, "Publish"),
    h("button", {
      type: "button",
      "aria-label": `Restore ${label}`,
      onclick: () => confirmThen(`Make the draft ${label} again? Its changes since are lost.`, async () => {
        try {
          await call("POST", `${storyPath}/versions/${version.id}/restore`);
          notice(`The draft is ${label} again.`);
          await reloadStory();
        } catch (error) {
          notice(`Not restored: ${error.message}`, "error");
        }
      }),
    }, "Restore"),
  );
}

async function load() {
  const versions = await everything(`${storyPath}/versions`);
  byId("versions").replaceChildren(...versions.map(row));
  byId("versions-empty").hidden = versions.length > 0;
}

export async function startVersions(path, reload) {
  storyPath = path;
  reloadStory = reload;
  byId("version-create").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const made = await call("POST", `${storyPath}/versions`, { note: byId("version-note").value });
      byId("version-note").value = "";
      notice(`Version ${made.number} frozen.`);
      await load();
    } catch (error) {
      notice(`Not frozen: ${error.message}`, "error");
    }
  });
  await load();
}
