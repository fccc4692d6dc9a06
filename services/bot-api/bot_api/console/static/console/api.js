// The public APIs, called with the developer token kept in this tab's sessionStorage, or
// with the session cookie of a member signed in with the identity provider (docs/teams.md
// "Sign-in"): the browser sends the cookie, and every change carries the session's CSRF
// token, which `loadSession` reads.
const TOKEN = "parley.developerToken";
const CSRF_HEADER = "X-CSRF-Token";
let csrfToken = "";

export const token = () => sessionStorage.getItem(TOKEN);
export const keepToken = (value) => sessionStorage.setItem(TOKEN, value);
export const forgetToken = () => sessionStorage.removeItem(TOKEN);
export const page = document.body.dataset;

// Who the session cookie signs in (null for nobody), remembering its CSRF token.
export async function loadSession() {
  const response = await fetch("/console/session");
  if (!response.ok) return null;
  const session = await response.json();
  csrfToken = session.csrfToken;
  return session;
}

// Ends the cookie's session on the server (a token is only forgotten, by the caller);
// where the browser signs out of the identity provider too, or null.
export async function signOut() {
  if (token() || !csrfToken) return null;
  const response = await fetch("/console/sign-out", { method: "POST", headers: { [CSRF_HEADER]: csrfToken } });
  return response.ok ? (await response.json()).providerSignOut : null;
}

// The headers and credentials a call sends: the token, or the cookie (to integrations-api's
// origin too) with the CSRF token on changes.
export function authorizing(method) {
  if (token()) return { headers: { Authorization: `Bearer ${token()}` }, credentials: "same-origin" };
  const headers = method === "GET" ? {} : { [CSRF_HEADER]: csrfToken };
  return { headers, credentials: "include" };
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.status?.errorDetails || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

// `type`: the body is sent as it is (a File or Blob) with this Content-Type, not as JSON. A
// FormData is sent as it is too, as multipart/form-data with the boundary the browser sets.
async function send(method, path, body, { base = "", signOutOn401 = true, type = "" } = {}) {
  const { headers, credentials } = authorizing(method);
  const asIs = type || body instanceof FormData;
  if (body !== undefined && !(body instanceof FormData)) headers["Content-Type"] = type || "application/json";
  const response = await fetch(base + path, {
    method,
    headers,
    credentials,
    body: body === undefined || asIs ? body : JSON.stringify(body),
  });
  const text = await response.text();
  const answer = text ? JSON.parse(text) : null;
  if (!response.ok) refused(response.status, answer, signOutOn401);
  // An edit that started a run of the story's tests links to its result (docs/tests.md).
  if ((response.headers.get("Link") || "").includes('rel="tests"')) {
    window.dispatchEvent(new Event("parley:tests-started"));
  }
  return { answer, headers: response.headers };
}

function refused(status, answer, signOutOn401 = true) {
  if (status === 401 && signOutOn401) {
    forgetToken();
    location.assign("/console/");
  }
  throw new ApiError(status, answer);
}

// A file the API answers (an export): fetched with the token, so it never is in a URL.
export async function file(path) {
  const response = await fetch(path, authorizing("GET"));
  if (!response.ok) {
    const text = await response.text();
    refused(response.status, text ? JSON.parse(text) : null);
  }
  return response.blob();
}

export async function call(method, path, body, options) {
  return (await send(method, path, body, options)).answer;
}

// The most a list answers at once (shared/pages.py MAX_PAGE).
export const MAX_PAGE = 200;

// One page of a list and the total of all its pages (`X-Total-Count`).
export async function listPage(path, offset, { base = "", limit = MAX_PAGE } = {}) {
  const query = `${path.includes("?") ? "&" : "?"}limit=${limit}&offset=${offset}`;
  const { answer, headers } = await send("GET", path + query, undefined, { base });
  return { items: answer, total: Number(headers.get("X-Total-Count") ?? answer.length) };
}

// Every item of a list, a page at a time: for what a page needs whole (names, kinds).
export async function everything(path, options = {}) {
  const items = [];
  for (;;) {
    const { items: more, total } = await listPage(path, items.length, options);
    items.push(...more);
    if (more.length === 0 || items.length >= total) return items;
  }
}

// The connection API of integrations-api (CORS lets this origin call it).
export const CONNECTIONS = "/v2/integrations/webhook";
export const integrations = (method, path, body) =>
  call(method, `${CONNECTIONS}${path}`, body, { base: page.integrations });
// Every connection of the account that belongs to `storyId`.
export const storyConnections = async (storyId) =>
  (await everything(CONNECTIONS, { base: page.integrations })).filter((c) => c.story.id === storyId);

// The channel API of integrations-api: a story on Telegram, Slack, Messenger, WhatsApp.
export const CHANNELS = "/v2/integrations/channels";
export const channelsApi = (method, path, body) =>
  call(method, `${CHANNELS}${path}`, body, { base: page.integrations });
// Every channel of the account that belongs to `storyId`.
export const storyChannels = async (storyId) =>
  (await everything(CHANNELS, { base: page.integrations })).filter((c) => c.story.id === storyId);
