// The interaction editor: every field of the interaction API, errors beside their fields.
import { call, everything, page, storyConnections } from "./api.js";
import { responseEditor } from "./responses.js";
import { watchTests } from "./tests_summary.js";
import { promptList, translationTabs } from "./translations.js";
import {
  byId, clearErrors, commaList, confirmThen, counted, h, itemList, languageTag, linesOf, notice, showErrors, showPhrases,
  textBox,
} from "./ui.js";

const path = `/stories/${page.story}/interactions/${page.interaction}`;

const preview = () => showPhrases(byId("f-usersays"), byId("usersays-preview"));

// A parameter's prompts are edited one by one: a prompt keeps its newlines. Its replies,
// the quick replies shown with each prompt, too (a click sends the reply).
function promptLists(parameter, index) {
  const lang = byId("parameters").dataset.lang || null;
  const prompts = promptList(`parameters.${index}.prompts`, parameter.prompts || [], lang);
  prompts.node.setAttribute("role", "group");
  prompts.node.setAttribute("aria-label", "Prompts (a parameter with prompts is required)");
  const replies = itemList(`parameters.${index}.promptReplies`, parameter.promptReplies || [], {
    one: "prompt reply", many: "prompt replies", max: 11, blank: "",
    make: (reply, at, number) => {
      const control = textBox(reply, { lang, "aria-label": `Prompt reply ${number}`, placeholder: "a value to click", "data-field": at }, 1);
      return { node: counted(control, 20), read: () => control.value };
    },
  });
  replies.node.setAttribute("role", "group");
  replies.node.setAttribute("aria-label", "Prompt replies (buttons shown with each prompt)");
  const node = h("div", { className: "prompt-lists" }, prompts.node, replies.node);
  return { node, read: () => ({ prompts: prompts.read(), promptReplies: replies.read() }) };
}

function parameterRow(parameter, index) {
  const alias = Object.assign(h("input", { "data-field": `parameters.${index}.alias`, "aria-label": "Alias", placeholder: "alias" }), { value: parameter.alias || "" });
  const entity = Object.assign(h("input", { "data-field": `parameters.${index}.entity`, "aria-label": "Entity", placeholder: "entity", list: "entity-names" }), { value: parameter.entity || "" });
  let lists = promptLists(parameter, index);
  const row = h("div", { className: "parameter" }, alias, entity, lists.node,
    h("button", { type: "button", className: "danger", onclick: () => row.remove() }, "Remove"));
  // As it stands, without moving its lists' paths: what the language tabs compare with.
  row.current = () => ({ alias: alias.value.trim(), prompts: lists.read().prompts });
  row.read = (position) => {
    alias.dataset.field = `parameters.${position}.alias`;
    entity.dataset.field = `parameters.${position}.entity`;
    if (position !== index) { // rows above were removed: the lists' paths follow
      const moved = promptLists(lists.read(), position);
      lists.node.replaceWith(moved.node);
      [lists, index] = [moved, position];
    }
    return { alias: alias.value.trim(), entity: entity.value.trim(), ...lists.read() };
  };
  return row;
}

// Marks the words selected in the phrases as a parameter: "vase" -> {{container:container}},
// and adds the parameter if the interaction has no such alias yet.
function slotMarker(entities) {
  const select = byId("slot-entity");
  select.replaceChildren(...entities.map((e) => h("option", { value: e.name }, e.name)));
  select.addEventListener("change", () => (byId("slot-alias").value = select.value));
  byId("slot-alias").value = select.value;
  byId("slot-mark").addEventListener("click", () => {
    const phrases = byId("f-usersays");
    const said = phrases.value.slice(phrases.selectionStart, phrases.selectionEnd);
    const entity = select.value;
    const alias = byId("slot-alias").value.trim() || entity;
    if (!said.trim() || !entity) {
      notice("Select a word of a phrase, then choose its entity.", "error");
      return;
    }
    const start = phrases.selectionStart + (said.length - said.trimStart().length);
    const end = phrases.selectionEnd - (said.length - said.trimEnd().length);
    const slot = `{{${entity}:${alias}}}`;
    phrases.setRangeText(slot, start, end, "end");
    phrases.dispatchEvent(new Event("input"));
    phrases.focus();
    const rows = byId("parameters");
    const known = [...rows.querySelectorAll('[aria-label="Alias"]')].some((input) => input.value.trim() === alias);
    if (!known) rows.append(parameterRow({ alias, entity }, rows.children.length));
    notice(`"${said.trim()}" is now the parameter ${alias} (${entity}).`);
  });
}

function webhookKind(value, connections) {
  if (!value) return "";
  return connections.some((c) => c.id === value) || /^[0-9a-f]{24}$/.test(value) ? "connection" : "url";
}

function showWebhook() {
  const kind = byId("f-webhook-kind").value;
  byId("f-webhook-url").hidden = kind !== "url";
  byId("f-webhook-connection").hidden = kind !== "connection";
}

export async function start() {
  const [story, interaction, entities, connections] = await Promise.all([
    call("GET", `/stories/${page.story}`),
    call("GET", path),
    everything("/entities"),
    storyConnections(page.story).catch(
      () => {
        notice("The webhook connections could not be read from integrations-api.", "error");
        return [];
      },
    ),
  ]);
  // What people will say is in the story's language: spellcheck and screen readers use it.
  const lang = languageTag(story.settings.language);
  const responses = responseEditor(byId("responses"), lang, connections);
  byId("f-usersays").lang = lang;
  byId("parameters").dataset.lang = lang;
  document.body.append(h("datalist", { id: "entity-names" }, entities.map((e) => h("option", { value: e.name }))));
  slotMarker(entities);
  byId("f-webhook-connection").replaceChildren(
    ...connections.map((c) => h("option", { value: c.id }, `${c.name} (${c.url})`)),
  );
  const languages = translationTabs(story, connections, () => ({
    userSays: linesOf(byId("f-usersays").value),
    parameters: [...byId("parameters").children].map((row) => row.current()),
    responses: responses.read(),
  }));

  function fill(item) {
    byId("interaction-title").textContent = `${item.name} (${item.type})`;
    byId("f-name").value = item.name;
    byId("f-action").value = item.action;
    byId("f-triggers").value = item.triggers.join(", ");
    byId("f-usersays").value = item.userSays.join("\n");
    byId("parameters").replaceChildren(...item.parameters.map(parameterRow));
    responses.set(item.responses);
    const kind = webhookKind(item.webhook, connections);
    byId("f-webhook-kind").value = kind;
    byId("f-webhook-url").value = kind === "url" ? item.webhook : "";
    if (kind === "connection") byId("f-webhook-connection").value = item.webhook;
    showWebhook();
    preview();
    languages?.set(item.translations);
  }
  fill(interaction);
  // The story's tests run after each edit: the summary names those the last save broke.
  await watchTests(page.story);

  byId("f-usersays").addEventListener("input", preview);
  byId("f-webhook-kind").addEventListener("change", showWebhook);
  byId("add-parameter").addEventListener("click", () => {
    const rows = byId("parameters");
    rows.append(parameterRow({}, rows.children.length));
    rows.lastElementChild.querySelector("input").focus();
  });
  byId("add-response").addEventListener("click", () => responses.add(byId("new-response-type").value));

  const form = byId("interaction-form");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const kind = byId("f-webhook-kind").value;
    const body = {
      name: byId("f-name").value,
      action: byId("f-action").value,
      triggers: commaList(byId("f-triggers").value),
      userSays: linesOf(byId("f-usersays").value),
      parameters: [...byId("parameters").children].map((row, index) => row.read(index)),
      responses: responses.read(),
      webhook: kind === "url" ? byId("f-webhook-url").value.trim() : kind === "connection" ? byId("f-webhook-connection").value : "",
      ...(languages && { translations: languages.read() }),
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
  byId("interaction-delete").addEventListener("click", () =>
    confirmThen(`Delete "${interaction.name}" and what it owns?`, async () => {
      try {
        await call("DELETE", `/stories/${page.story}/interactions`, [page.interaction]);
        location.assign(`/console/stories/${page.story}`);
      } catch (error) {
        notice(error.message, "error");
      }
    }),
  );
}
