// The last run of a story's tests, after its last edit: shown on the story and Tests pages,
// and fetched again when an edit's answer says it started a run (its `Link` rel="tests").
import { call } from "./api.js";
import { byId } from "./ui.js";

const RETRY_MS = 300; // the run starts 0.5 s after the edit (EDIT_DEBOUNCE_SECONDS)
const TRIES = 20;

// The last run, or null: none yet, or the story has no tests (asked first, so a story
// without tests costs no 404).
export async function lastRun(storyId) {
  const tests = await call("GET", `/stories/${storyId}/tests`);
  if (tests.length === 0) return null;
  try {
    return await call("GET", `/stories/${storyId}/tests/last`);
  } catch (error) {
    if (error.status === 404) return null; // no run after an edit yet
    throw error;
  }
}

export function describe(run) {
  if (!run) return { text: "Tests: none run after an edit yet.", kind: "none" };
  const broken = run.results.filter((result) => result.broken).map((result) => result.name);
  const text =
    `Tests: ${run.passed} passed, ${run.failed} failed` +
    (broken.length ? ` — broken by the last edit: ${broken.join(", ")}` : "");
  return { text, kind: run.failed ? "failed" : "passed" };
}

// Keeps `#tests-summary` current; `shown(run)` is called with each new run.
export async function watchTests(storyId, shown = () => {}) {
  let current = await lastRun(storyId);
  const show = (run) => {
    const { text, kind } = describe(run);
    const box = byId("tests-summary");
    box.textContent = text;
    box.dataset.kind = kind;
    shown(run);
  };
  show(current);
  window.addEventListener("parley:tests-started", async () => {
    for (let tries = 0; tries < TRIES; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      const run = await lastRun(storyId);
      if (run && run.ranAt !== current?.ranAt) {
        current = run;
        show(run);
        return;
      }
    }
  });
}
