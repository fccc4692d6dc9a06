// Tabs over a page's language panels (the WAI-ARIA tabs pattern): one tab selected and its
// panel shown, the arrow keys move between tabs, and a tab's "missing" badge says that its
// language lacks a variant of something (docs/console.md "Languages").
import { h } from "./ui.js";

// `onSelect(index)` runs before a tab's panel is shown.
export function tabs(list, onSelect = () => {}) {
  const entries = [];

  function select(index, focus = false) {
    onSelect(index);
    entries.forEach((entry, at) => {
      entry.tab.setAttribute("aria-selected", String(at === index));
      entry.tab.tabIndex = at === index ? 0 : -1;
      entry.panel.hidden = at !== index;
    });
    if (focus) entries[index].tab.focus();
  }

  list.addEventListener("keydown", (event) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    const at = entries.findIndex((entry) => entry.tab.getAttribute("aria-selected") === "true");
    select((at + step + entries.length) % entries.length, true);
  });

  return {
    add(label, panel) {
      const index = entries.length;
      const badge = h("span", { className: "badge missing", hidden: true }, "missing");
      const tab = h("button", {
        type: "button", role: "tab", id: `${panel.id}-tab`, "aria-controls": panel.id,
        onclick: () => select(index),
      }, label, badge);
      panel.setAttribute("role", "tabpanel");
      panel.setAttribute("aria-labelledby", tab.id);
      list.append(tab);
      entries.push({ tab, panel, badge });
      list.hidden = entries.length < 2;
      select(0);
      return index;
    },
    // Whether the language of tab `index` lacks something (its badge shown).
    mark(index, missing) {
      entries[index].badge.hidden = !missing;
    },
    select,
  };
}
