// The misses inbox: clusters of what the bot did not understand, biggest first, each with
// the interaction the engine suggests preselected; one click adds its messages, and the
// last action can be undone on this page (docs/history.md).
import { call, everything, page } from "./api.js";
import { byId, h, notice } from "./ui.js";

const base = () => `/stories/${page.story}/inbox`;
let interactions = []; // the story's interactions that take phrases
let undo = null; // what puts the last action back

function choices(cluster) {
  const select = h(
    "select",
    { "aria-label": `Interaction for "${cluster.examples[0]}"`, "data-role": "interaction" },
    ...interactions.map((i) => h("option", { value: i.id }, i.name)),
  );
  if (cluster.suggested) select.value = cluster.suggested.id;
  return select;
}

const when = (iso) => new Date(iso).toLocaleString();

function card(cluster) {
  const select = choices(cluster);
  const name = h("input", { "aria-label": "New interaction name", maxlength: "1024", value: cluster.examples[0].slice(0, 60) });
  const suggested = cluster.suggested
    ? `Suggested: ${cluster.suggested.name} (score ${cluster.suggested.score.toFixed(2)})`
    : "No suggestion";
  return h(
    "li",
    { "data-cluster": cluster.id },
    h("h3", {}, `${cluster.count} × “${cluster.examples[0]}”`),
    h("ul", { className: "examples" }, ...cluster.examples.map((text) => h("li", {}, text))),
    h("p", { className: "muted" }, `${suggested} · first ${when(cluster.first)} · last ${when(cluster.last)}`),
    select,
    h("button", { type: "button", "data-action": "assign", onclick: () => assign(cluster, select) }, "Add messages"),
    h("p", {}, name, h("button", { type: "button", "data-action": "create", onclick: () => create(cluster, name.value) }, "New interaction")),
    h("button", { type: "button", className: "danger", "data-action": "ignore", onclick: () => ignore(cluster) }, "Ignore"),
  );
}

async function load() {
  const inbox = await call("GET", base());
  byId("inbox-total").textContent = `${inbox.total} cluster${inbox.total === 1 ? "" : "s"} to review.`;
  byId("cluster-list").replaceChildren(...inbox.clusters.map(card));
  if (inbox.clusters.length === 0) byId("cluster-list").append(h("li", {}, "Nothing to review."));
}

function done(text, putBack) {
  undo = putBack;
  const button = h("button", { type: "button", id: "undo" }, "Undo");
  button.addEventListener("click", async () => {
    const action = undo;
    undo = null;
    button.remove();
    await action();
    await load();
    notice("Undone.");
  });
  notice(text);
  byId("notice").append(" ", button);
}

async function act(work) {
  try {
    await work();
  } catch (error) {
    notice(error.message, "error");
  }
  await load();
}

const reopen = (answer) => call("POST", `${base()}/reopen`, { turns: answer.turns });

function assign(cluster, select) {
  return act(async () => {
    const path = `/stories/${page.story}/interactions/${select.value}`;
    const before = (await call("GET", path)).userSays;
    const answer = await call("POST", `${base()}/${cluster.id}/assign`, { interaction: select.value });
    const name = select.selectedOptions[0].textContent;
    const left = answer.notAdded.length ? `; ${answer.notAdded.length} did not fit (99 phrases at most)` : "";
    done(`Added ${answer.added.length} message(s) to ${name}${left}.`, async () => {
      await call("PUT", path, { userSays: before });
      await reopen(answer);
    });
  });
}

function create(cluster, name) {
  return act(async () => {
    const answer = await call("POST", `${base()}/${cluster.id}/interaction`, { name });
    done(`Created ${name} with ${answer.added.length} phrase(s).`, async () => {
      await call("DELETE", `/stories/${page.story}/interactions`, [answer.interaction]);
      await reopen(answer);
    });
  });
}

function ignore(cluster) {
  return act(async () => {
    const answer = await call("POST", `${base()}/${cluster.id}/ignore`, {});
    done(`Ignored ${answer.ignored.length} message(s).`, () => reopen(answer));
  });
}

export async function start() {
  const all = await everything(`/stories/${page.story}/interactions`);
  interactions = all.filter((i) => i.type !== "fallback");
  await load();
}
