// The page's only way out: the public HTTP API of `tern serve`, with the tab's token (if the
// server wants one) in an Authorization header. A 401 is a TokenNeeded, so the page can ask.

const TOKEN_KEY = "tern-token";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The server wants a (different) token. */
export class TokenNeeded extends ApiError {}

/** The token this tab was given (sessionStorage: this tab only, gone when it closes). */
export function token(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function setToken(value: string): void {
  sessionStorage.setItem(TOKEN_KEY, value);
}

export function headers(extra: Record<string, string> = {}): Record<string, string> {
  const value = token();
  return value ? { ...extra, authorization: `Bearer ${value}` } : extra;
}

/** A request to the API; non-2xx answers become ApiError with the server's message. */
export async function call(
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<Response> {
  const init: RequestInit = {
    method,
    headers: headers(body === undefined ? {} : { "content-type": "application/json" }),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(signal ? { signal } : {}),
  };
  const res = await fetch(path, init);
  if (res.ok) return res;
  let message = `${res.status} ${res.statusText}`;
  try {
    const data = (await res.json()) as { error?: { message?: string } };
    if (data.error?.message) message = data.error.message;
  } catch {}
  if (res.status === 401) throw new TokenNeeded(401, message);
  throw new ApiError(res.status, message);
}

export async function json<T>(method: string, path: string, body?: unknown): Promise<T> {
  return (await (await call(method, path, body)).json()) as T;
}

export interface SessionInfo {
  id: string;
  title: string;
  updated: string;
  running: boolean;
  model?: string;
  /** The strategy chosen at creation (loop, plan, auto), when the server lists it. */
  strategy?: string;
}

export interface ModelInfo {
  id: string;
  name: string;
}

export const sessionPath = (id: string, rest = "") => `/api/sessions/${encodeURIComponent(id)}${rest}`;
