// The FAQ editor of the Knowledge page: pairs of a question, its alternatives (one a
// line) and an answer, edited row by row and saved as one FAQ document: POSTed when
// new, PUT over the one opened with Edit.
import { call } from "./api.js";
import { byId, clearErrors, h, itemList, linesOf, notice, showErrors, textBox } from "./ui.js";

const MAX_PAIRS = 2000; // knowledge/schemas.py MAX_FAQ_PAIRS
const BLANK = { question: "", alternatives: [], answer: "" };

function pairRow(value, path, number) {
  const question = h("input", {
    "aria-label": `Question ${number}`, "data-field": `${path}.question`, maxlength: "1000", value: value.question,
    placeholder: "Question",
  });
  const alternatives = textBox((value.alternatives || []).join("\n"), {
    "aria-label": `Alternatives of question ${number} (one a line)`, "data-field": `${path}.alternatives`,
    placeholder: "Other ways to ask it, one a line (optional)",
  }, 1);
  const answer = textBox(value.answer, {
    "aria-label": `Answer ${number}`, "data-field": `${path}.answer`, maxlength: "4000",
    placeholder: "Answer",
  });
  const node = h(
    "div",
    { className: "faq-pair" },
    h("span", { className: "label" }, `Pair ${number}`),
    question,
    alternatives,
    answer,
  );
  // No alternatives: the key is left out (the API takes none for an empty list).
  const read = () => {
    const pair = { question: question.value.trim(), answer: answer.value.trim() };
    const others = linesOf(alternatives.value);
    return others.length ? { ...pair, alternatives: others } : pair;
  };
  return { node, read };
}

export function startFaqEditor(base, reload) {
  const form = byId("faq-form");
  let editing = null; // the id of the FAQ document being edited
  let pairs = null;

  function draw(title, values) {
    byId("faq-title").value = title;
    pairs = itemList("faq", values, {
      one: "pair",
      many: "pairs",
      max: MAX_PAIRS,
      blank: BLANK,
      make: pairRow,
    });
    byId("faq-pairs").replaceChildren(pairs.node);
  }

  function reset() {
    editing = null;
    clearErrors(form);
    byId("faq-heading").textContent = "New FAQ";
    draw("", [BLANK]);
  }

  async function edit(id) {
    try {
      const document = await call("GET", `${base}/${id}`);
      editing = id;
      clearErrors(form);
      byId("faq-heading").textContent = `Edit ${document.title}`;
      draw(document.title, document.faq.map(({ question, alternatives, answer }) => ({ question, alternatives, answer })));
      byId("faq-title").focus();
    } catch (error) {
      notice(error.message, "error");
    }
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { title: byId("faq-title").value.trim(), faq: pairs.read() };
    try {
      if (editing) await call("PUT", `${base}/${editing}`, body);
      else await call("POST", base, body);
      reset();
      await reload();
      notice(`Saved the FAQ "${body.title}".`);
    } catch (error) {
      showErrors(form, error);
    }
  });
  byId("faq-new").addEventListener("click", reset);
  reset();
  return { edit, reset, editing: () => editing };
}
