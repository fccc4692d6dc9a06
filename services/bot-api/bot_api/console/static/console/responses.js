// The response blocks of the interaction editor: one form part per type, its limits
// (docs/api.md "Stored responses") counted as you type. A block's lists (a text's
// messages, the replies, the buttons) are edited item by item, never split on newlines:
// a block the user did not touch is sent back exactly as it was read.
import { page } from "./api.js";
import { counted, h, itemList, textBox } from "./ui.js";

const LABELS = {
  text: "Text",
  quickReply: "Quick replies",
  image: "Image",
  card: "Card",
  buttonTemplate: "Button template",
  handoff: "Handoff to a person",
};

// `wrap` holds `control` and its counter.
function field(path, label, control, wrap) {
  control.dataset.field = path;
  control.id = `f-${path.replaceAll(".", "-")}`;
  return h("div", { className: "row" }, h("label", { for: control.id }, label), wrap);
}

// A list's items under one label, read as a group.
function group(path, label, list) {
  const id = `f-${path.replaceAll(".", "-")}-label`;
  list.node.setAttribute("role", "group");
  list.node.setAttribute("aria-labelledby", id);
  return h("div", { className: "row" }, h("span", { className: "label", id }, label), list.node);
}

// `lang`: the story's language, for what users will read, in a box that keeps its
// newlines; a URL is an input.
const spoken = (value = "", lang = "", attributes = {}) => textBox(value, { lang: lang || null, ...attributes }, 1);
const input = (value = "", attributes = {}) => Object.assign(h("input", attributes), { value });

// One button: its title (the limit counted) and its postback or URL.
function buttonItem(button, path, number, lang) {
  const title = spoken(button.title, lang, { "aria-label": `Button ${number} title`, "data-field": `${path}.title` });
  const postback = input(button.postback, {
    "aria-label": `Button ${number} postback or URL`, "data-field": `${path}.postback`,
    placeholder: "postback or URL (empty: the title)",
  });
  const node = h("div", { className: "button-item", "data-field": path },
    counted(title, 20), counted(postback, 2048));
  return { node, read: () => ({ title: title.value, postback: postback.value }) };
}

// The story's webhook connections to hand the conversation to; a stored id that is none
// of them stays an option, so saving never changes it.
function connectionChoice(chosen, connections) {
  const select = h("select", {},
    ...connections.map((c) => h("option", { value: c.id }, `${c.name} (${c.url})`)));
  if (chosen && !connections.some((c) => c.id === chosen)) {
    select.prepend(h("option", { value: chosen }, `${chosen} (not a connection of this story)`));
  }
  if (!chosen) select.prepend(h("option", { value: "" }, "Choose a connection"));
  select.value = chosen || "";
  return select;
}

// The rows of a block's form part, and read(): the block as the API takes it.
function parts(block, path, lang, connections) {
  const rows = [];
  const readers = {};
  const add = (name, label, control, wrap, read) => {
    rows.push(field(`${path}.${name}`, label, control, wrap));
    readers[name] = read;
  };
  const list = (name, label, values, options) => {
    const items = itemList(`${path}.${name}`, values, options);
    rows.push(group(`${path}.${name}`, label, items));
    readers[name] = items.read;
  };
  const text = (name, label, max, said = true) => {
    const control = said ? spoken(block[name], lang) : input(block[name]);
    add(name, label, control, counted(control, max), () => control.value);
  };
  const buttons = () =>
    list("buttons", "Buttons", block.buttons || [], {
      one: "button", many: "buttons", max: 3, blank: { title: "", postback: "" },
      make: (button, at, number) => buttonItem(button, at, number, lang),
    });
  switch (block.type) {
    case "text":
      list("messages", "Messages (one is said at random)", block.messages || [""], {
        one: "message", many: "messages", max: 20, blank: "",
        make: (message, at, number) => {
          const control = textBox(message, { lang: lang || null, "aria-label": `Message ${number}`, "data-field": at });
          return { node: counted(control, 2048), read: () => control.value };
        },
      });
      break;
    case "quickReply":
      text("title", "Title", 80);
      list("replies", "Replies", block.replies || [""], {
        one: "reply", many: "replies", max: 11, blank: "",
        make: (reply, at, number) => {
          const control = spoken(reply, lang, { "aria-label": `Reply ${number}`, "data-field": at });
          return { node: counted(control, 20), read: () => control.value };
        },
      });
      break;
    case "image":
      text("imageUrl", "Image URL", 2048, false);
      break;
    case "card":
      text("title", "Title", 80);
      text("subtitle", "Subtitle", 80);
      text("imageUrl", "Image URL", 2048, false);
      buttons();
      break;
    case "buttonTemplate":
      text("title", "Text", 640);
      buttons();
      break;
    case "handoff": {
      const control = connectionChoice(block.connection, connections);
      const manage = h("a", { href: `/console/stories/${page.story}/connections` }, "the story's connections");
      add("connection", "Webhook connection (the person's side)", control,
        h("span", { className: "limited" }, control, h("span", { className: "muted" }, "from ", manage)),
        () => control.value);
      break;
    }
  }
  const read = () =>
    Object.fromEntries([["type", block.type], ...Object.entries(readers).map(([n, r]) => [n, r()])]);
  return { rows, read };
}

// `connections`: the story's webhook connections, for a handoff block; `at`: where the
// blocks are in the API's body (a translation's are at "translations.de.responses").
export function responseEditor(container, lang, connections, at = "responses") {
  const blocks = [];

  function draw() {
    container.replaceChildren(
      ...blocks.map((entry, index) => {
        const path = `${at}.${index}`;
        const { rows, read } = parts(entry.block, path, lang, connections);
        entry.read = read;
        return h(
          "div",
          { className: "response", "data-field": path },
          h("h3", {}, `${index + 1}. ${LABELS[entry.block.type]}`),
          rows,
          h("button", { type: "button", className: "danger", onclick: () => remove(index) },
            `Remove response ${index + 1}`),
        );
      }),
    );
  }

  function remove(index) {
    sync();
    blocks.splice(index, 1);
    draw();
  }

  function sync() {
    blocks.forEach((entry) => (entry.block = entry.read()));
  }

  return {
    set(list) {
      blocks.splice(0, blocks.length, ...list.map((block) => ({ block })));
      draw();
    },
    add(type) {
      sync();
      blocks.push({ block: { type } });
      draw();
      container.lastElementChild.querySelector("input, textarea, select")?.focus();
    },
    read() {
      return blocks.map((entry) => entry.read());
    },
  };
}
