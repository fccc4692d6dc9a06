import { call } from "./api.js";
import { byId, commaList, h, showErrors } from "./ui.js";

export const entriesOf = (values) =>
  values.map((value) => ({ value, synonyms: [{ value }] }));

export async function start() {
  const entities = await call("GET", "/entities");
  byId("entity-list").replaceChildren(
    ...entities.map((entity) =>
      h(
        "li",
        {},
        h("a", { href: `/console/entities/${entity.id}` }, entity.name),
        h("p", { className: "muted" }, entity.entries.map((entry) => entry.value).join(", ")),
      ),
    ),
  );
  if (entities.length === 0) byId("entity-list").append(h("li", {}, "No entity yet."));
  const form = byId("entity-create");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await call("POST", "/entities", {
        name: byId("new-entity-name").value,
        entries: entriesOf(commaList(byId("new-entity-values").value)),
      });
      location.reload();
    } catch (error) {
      showErrors(form, error);
    }
  });
}
