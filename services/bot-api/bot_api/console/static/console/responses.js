// The response blocks of the interaction editor: one form part per type, its limits
// (docs/api.md "Stored responses") counted as you type.
import { counted, countedLines, h, linesOf } from "./ui.js";

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

// `lang`: the story's language, for what users will read (not for URLs).
const input = (value = "", lang = "") => Object.assign(h("input", { lang: lang || null }), { value });
const area = (lines, lang = "") =>
  Object.assign(h("textarea", { rows: 3, lang: lang || null }), { value: lines.join("\n") });

// Buttons as lines "title | postback".
const buttonLines = (buttons = []) => buttons.map((b) => (b.postback && b.postback !== b.title ? `${b.title} | ${b.postback}` : b.title));
const buttonsOf = (text) =>
  linesOf(text).map((line) => {
    const [title, ...rest] = line.split("|");
    return { title: title.trim(), postback: rest.join("|").trim() };
  });

// The rows of a block's form part, and read(): the block as the API takes it.
function parts(block, path, lang) {
  const rows = [];
  const readers = {};
  const add = (name, label, control, wrap, read) => {
    rows.push(field(`${path}.${name}`, label, control, wrap));
    readers[name] = read;
  };
  const text = (name, label, max, spoken = true) => {
    const control = input(block[name], spoken ? lang : "");
    add(name, label, control, counted(control, max), () => control.value);
  };
  const buttons = () => {
    const control = area(buttonLines(block.buttons), lang);
    add("buttons", "Buttons (one a line: title | postback or URL)", control,
      countedLines(control, 3, 20, "buttons"), () => buttonsOf(control.value));
  };
  switch (block.type) {
    case "text": {
      const control = area(block.messages || [], lang);
      add("messages", "Messages (one a line; one is said at random)", control,
        countedLines(control, 20, 2048, "messages"), () => linesOf(control.value));
      break;
    }
    case "quickReply": {
      text("title", "Title", 80);
      const control = area(block.replies || [], lang);
      add("replies", "Replies (one a line)", control, countedLines(control, 11, 20, "replies"),
        () => linesOf(control.value));
      break;
    }
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
    case "handoff":
      text("connection", "Webhook connection id (the person's side)", 24, false);
      break;
  }
  const read = () =>
    Object.fromEntries([["type", block.type], ...Object.entries(readers).map(([n, r]) => [n, r()])]);
  return { rows, read };
}

export function responseEditor(container, lang) {
  const blocks = [];

  function draw() {
    container.replaceChildren(
      ...blocks.map((entry, index) => {
        const path = `responses.${index}`;
        const { rows, read } = parts(entry.block, path, lang);
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
      container.lastElementChild.querySelector("input, textarea")?.focus();
    },
    read() {
      return blocks.map((entry) => entry.read());
    },
  };
}
