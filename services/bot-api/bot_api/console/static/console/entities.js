import { call } from "./api.js";
import { byId, commaList, h, pagedList, showErrors } from "./ui.js";

export const entriesOf = (values) =>
  values.map((value) => ({ value, synonyms: [{ value }] }));

const card = (entity) =>
  h(
    "li",
    {},
    h("a", { href: `/console/entities/${entity.id}` }, entity.name),
    h("p", { className: "muted" }, entity.entries.map((entry) => entry.value).join(", ")),
  );

export async function start() {
  await pagedList(byId("entity-list"), "/entities", card, "No entity yet.");
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
