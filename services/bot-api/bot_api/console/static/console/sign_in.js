import { ApiError, call, forgetToken, keepToken, loadSession, page, token } from "./api.js";
import { byId } from "./ui.js";

export async function start() {
  // With an identity provider, a member may already be signed in by the session cookie.
  if (token() || (page.provider && (await loadSession()))) location.replace("/console/stories");
  byId("sign-in-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = byId("token");
    keepToken(input.value.trim());
    input.value = "";
    try {
      await call("GET", "/stories?limit=1", undefined, { signOutOn401: false });
      location.assign("/console/stories");
    } catch (error) {
      forgetToken();
      const refused = error instanceof ApiError && [401, 403].includes(error.status);
      document.querySelector('[data-error-for="token"]').textContent = refused
        ? "This is not a developer token of an account."
        : error.message;
    }
  });
}
