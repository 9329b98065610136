// The console's one way to the API: the partner user's login token as a bearer token (the
// contract forbids an API key in browser code). The token lives in this tab's sessionStorage only:
// never in a URL, localStorage or a cookie.

const TOKEN_KEY = "edgestay.console.token";
const SESSION_ENDED = new Set(["invalid_token", "bearer_token_required"]);

/** An error answer of the API: its message and request id are what the user sees and reports. */
export class ApiFailure extends Error {
  /** @param {number} status @param {string} code @param {string} message @param {string | null} requestId */
  constructor(status, code, message, requestId) {
    super(message);
    this.status = status;
    this.code = code;
    this.requestId = requestId;
    /** The token was refused: the login page shows instead of this error. */
    this.sessionEnded = status === 401 && SESSION_ENDED.has(code);
  }
}

/** Called when the API says the token is no longer good (expired or revoked). */
let onExpired = () => {};
export const whenExpired = (/** @type {() => void} */ callback) => {
  onExpired = callback;
};

export const token = () => sessionStorage.getItem(TOKEN_KEY);
export const setToken = (/** @type {string} */ value) => sessionStorage.setItem(TOKEN_KEY, value);
export const clearToken = () => sessionStorage.removeItem(TOKEN_KEY);

/** Seconds since the epoch at which the token expires (its JWT `exp`), or null when unreadable. */
export const tokenExpiry = () => {
  const value = token();
  if (!value) return null;
  try {
    const payload = JSON.parse(atob(value.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
    return typeof payload.exp === "number" ? payload.exp : null;
  } catch {
    return null;
  }
};

/**
 * Calls the API and answers `data` of its envelope. The token refused (expired, revoked, its user
 * deactivated) ends the session (onExpired); any other error answer throws an ApiFailure.
 * @param {string} method @param {string} path @param {unknown} [body]
 */
export const api = async (method, path, body) => {
  const headers = { accept: "application/json" };
  const bearer = token();
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiFailure(0, "network", "The API could not be reached. Check your connection and try again.", null);
  }
  const requestId = res.headers.get("x-request-id");
  const json = await res.json().catch(() => null);
  if (!res.ok) {
    // Only the token's own refusal ends the session: another 401 (a route that wants an API key)
    // is an error of that call.
    if (res.status === 401 && bearer && SESSION_ENDED.has(json?.code)) {
      clearToken();
      onExpired();
    }
    throw new ApiFailure(
      res.status,
      json?.code ?? `http_${res.status}`,
      json?.message ?? `The API answered ${res.status}`,
      json?.requestId ?? requestId
    );
  }
  return json?.data;
};
