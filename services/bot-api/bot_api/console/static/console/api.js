// The public APIs, called with the developer token kept in this tab's sessionStorage.
const TOKEN = "parley.developerToken";

export const token = () => sessionStorage.getItem(TOKEN);
export const keepToken = (value) => sessionStorage.setItem(TOKEN, value);
export const forgetToken = () => sessionStorage.removeItem(TOKEN);
export const page = document.body.dataset;

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.status?.errorDetails || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export async function call(method, path, body, { base = "", signOutOn401 = true } = {}) {
  const headers = { Authorization: `Bearer ${token()}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const answer = text ? JSON.parse(text) : null;
  if (!response.ok) {
    if (response.status === 401 && signOutOn401) {
      forgetToken();
      location.assign("/console/");
    }
    throw new ApiError(response.status, answer);
  }
  return answer;
}

// The connection API of integrations-api (CORS lets this origin call it).
export const integrations = (method, path, body) =>
  call(method, `/v2/integrations/webhook${path}`, body, { base: page.integrations });
