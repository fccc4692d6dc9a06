// A story's conversation tests: the list with the last run's verdicts (red: what the last
// edit broke), a run on demand, and a simple editor (the turns as JSON).
import { call, page } from "./api.js";
import { watchTests } from "./tests_summary.js";
import { byId, clearErrors, confirmThen, h, notice, showErrors } from "./ui.js";

const base = `/stories/${page.story}/tests`;
let tests = [];
let editing = null; // the id of the test in the form, or null for a new one
let results = {}; // the verdict of each test id, from the last run shown

function difference(result) {
  if (result.passed) return null;
  const [field] = Object.keys(result.expected);
  const show = (value) => JSON.stringify(value);
  return h(
    "pre",
    { "data-role": "difference" },
    `Turn ${result.turn + 1}: ${field}\n  expected ${show(result.expected[field])}\n  got      ${show(result.got[field])}`,
  );
}

function item(test) {
  const result = results[test.id];
  const state = result ? (result.passed ? "passed" : "failed") : "unknown";
  const verdict = result ? (result.passed ? "passed" : result.broken ? "broken by the last edit" : "failed") : "not run";
  return h(
    "li",
    { "data-test": test.id, className: `test ${state}${result?.broken ? " broken" : ""}` },
    h("h3", {}, test.name),
    h("p", { className: "verdict" }, `${test.turns.length} turn${test.turns.length === 1 ? "" : "s"} · ${verdict}`),
    result ? difference(result) : null,
    h("button", { type: "button", "data-action": "edit", onclick: () => edit(test) }, "Edit"),
    h("button", { type: "button", className: "danger", "data-action": "delete", onclick: () => confirmThen(`Delete the test "${test.name}"?`, () => remove(test)) }, "Delete"),
  );
}

function render() {
  byId("test-list").replaceChildren(...tests.map(item));
  if (tests.length === 0) byId("test-list").append(h("li", {}, "No tests yet."));
}

function showRun(run) {
  results = Object.fromEntries((run?.results || []).map((result) => [result.id, result]));
  render();
}

async function load() {
  tests = await call("GET", base);
  render();
}

function edit(test) {
  editing = test.id;
  byId("test-form-heading").textContent = `Edit "${test.name}"`;
  byId("test-name").value = test.name;
  byId("test-turns").value = JSON.stringify(test.turns, null, 2);
  byId("test-name").focus();
}

function reset() {
  editing = null;
  byId("test-form-heading").textContent = "New test";
  byId("test-form").reset();
}

async function remove(test) {
  await call("DELETE", `${base}/${test.id}`);
  notice(`Deleted "${test.name}".`);
  await load();
}

async function save(event) {
  event.preventDefault();
  const form = byId("test-form");
  clearErrors(form);
  let turns;
  try {
    turns = JSON.parse(byId("test-turns").value || "[]");
  } catch (error) {
    showErrors(form, { body: { status: { errors: { turns: [`Not JSON: ${error.message}`] } } }, message: "The turns are not JSON." });
    return;
  }
  const body = { name: byId("test-name").value.trim(), turns };
  try {
    if (editing) await call("PUT", `${base}/${editing}`, body);
    else await call("POST", base, body);
  } catch (error) {
    showErrors(form, error);
    return;
  }
  notice(`Saved "${body.name}"; the tests run again.`);
  reset();
  await load();
}

async function run() {
  const button = byId("tests-run");
  button.disabled = true;
  try {
    const result = await call("POST", `${base}/run`, {});
    showRun(result);
    notice(`${result.passed} passed, ${result.failed} failed.`, result.failed ? "error" : "info");
  } catch (error) {
    notice(error.message, "error");
  } finally {
    button.disabled = false;
  }
}

export async function start() {
  await load();
  await watchTests(page.story, showRun);
  byId("test-form").addEventListener("submit", save);
  byId("test-cancel").addEventListener("click", reset);
  byId("tests-run").addEventListener("click", run);
}
