import { call } from "./api.js";
import { byId, h, languageOptions, pagedList, showErrors } from "./ui.js";

const card = (story) =>
  h(
    "li",
    {},
    h("a", { href: `/console/stories/${story.id}` }, story.name),
    h("p", { className: "muted" }, story.description),
  );

export async function start() {
  await pagedList(byId("story-list"), "/stories", card, "No story yet.");
  languageOptions(byId("new-story-language"));
  const form = byId("story-create");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const created = await call("POST", "/stories", {
        name: byId("new-story-name").value,
        description: byId("new-story-description").value,
        settings: { language: byId("new-story-language").value },
      });
      location.assign(`/console/stories/${created.id}`);
    } catch (error) {
      showErrors(form, error);
    }
  });
}
