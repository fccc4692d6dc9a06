// Starts the page the server rendered; every page but sign-in needs the token.
import { page, token } from "./api.js";

const pages = {
  "sign-in": () => import("./sign_in.js"),
  stories: () => import("./stories.js"),
  story: () => import("./story.js"),
  analytics: () => import("./analytics.js"),
  interaction: () => import("./interaction.js"),
  entities: () => import("./entities.js"),
  entity: () => import("./entity.js"),
  connections: () => import("./connections.js"),
  channels: () => import("./channels.js"),
  history: () => import("./history.js"),
  desk: () => import("./desk.js"),
  inbox: () => import("./inbox.js"),
  tests: () => import("./tests.js"),
  knowledge: () => import("./knowledge.js"),
  import: () => import("./import_story.js"),
  members: () => import("./members.js"),
  audit: () => import("./audit.js"),
};

if (page.page !== "sign-in" && !token()) {
  location.replace("/console/");
} else {
  document.getElementById("sign-out")?.addEventListener("click", () => {
    sessionStorage.clear(); // the token and the test chats' sessions
    location.assign("/console/");
  });
  // Nothing can be typed until the page's data has loaded, so loading never overwrites input.
  const main = document.getElementById("main");
  main.inert = true;
  try {
    const module = await pages[page.page]();
    await module.start();
  } finally {
    main.inert = false;
  }
  document.body.dataset.ready = "true";
}
