import { call } from "./api.js";
import { byId, h, showErrors } from "./ui.js";

export async function start() {
  const stories = await call("GET", "/stories");
  byId("story-list").replaceChildren(
    ...stories.map((story) =>
      h(
        "li",
        {},
        h("a", { href: `/console/stories/${story.id}` }, story.name),
        h("p", { className: "muted" }, story.description),
      ),
    ),
  );
  if (stories.length === 0) byId("story-list").append(h("li", {}, "No story yet."));
  const form = byId("story-create");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const created = await call("POST", "/stories", {
        name: byId("new-story-name").value,
        description: byId("new-story-description").value,
      });
      location.assign(`/console/stories/${created.id}`);
    } catch (error) {
      showErrors(form, error);
    }
  });
}
