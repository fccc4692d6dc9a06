// Starts the page the server rendered; every page but sign-in's needs the token or a
// session of a member signed in with the identity provider.
import { loadSession, page, signOut, token } from "./api.js";

const OPEN = new Set(["sign-in", "sign-in-step"]); // sign-in's pages: for whoever is not signed in

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

if (!OPEN.has(page.page) && !token() && !(await loadSession())) {
  location.replace("/console/");
} else {
  document.getElementById("sign-out")?.addEventListener("click", async () => {
    const atProvider = await signOut();
    sessionStorage.clear(); // the token and the test chats' sessions
    location.assign(atProvider ?? "/console/");
  });
  // Nothing can be typed until the page's data has loaded, so loading never overwrites input.
  const main = document.getElementById("main");
  main.inert = true;
  try {
    const module = await pages[page.page]?.();
    await module?.start();
  } finally {
    main.inert = false;
  }
  document.body.dataset.ready = "true";
}
