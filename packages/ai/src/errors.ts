import type { AssistantMessage, ErrorKind } from "./types.js";

export interface Failure {
  kind: ErrorKind;
  message: string;
  status?: number;
  retryAfterMs?: number;
}

const OVERFLOW_PATTERNS = [
  /context[_ ]length[_ ]exceeded/i,
  /maximum context length/i,
  /prompt is too long/i,
  /context window/i,
  /too many (input )?tokens/i,
  /input (is )?too long/i,
  /exceeds? the (model'?s? )?(maximum )?(context|token limit)/i,
  /reduce the length of the messages/i,
];

/** Failures worth another attempt when nothing has been streamed yet. */
export function isRetryable(kind: ErrorKind): boolean {
  return kind === "rate_limit" || kind === "overloaded" || kind === "server" || kind === "network";
}

/** True when a provider rejected the request because the context is too long: compact and retry. */
export function isContextOverflow(message: AssistantMessage): boolean {
  return message.stopReason === "error" && message.errorKind === "context_overflow";
}

/** Turns whatever a client library threw (or a provider's error payload) into a classified failure. */
export function classifyError(error: unknown, signal?: AbortSignal): Failure {
  const message = errorText(error);
  if (signal?.aborted || isAbortError(error)) return { kind: "aborted", message: "Request was aborted" };
  const status = numberField(error, "status");
  const retryAfterMs = retryAfterFrom(fieldOf(error, "headers"));
  const base = {
    message,
    ...(status !== undefined && { status }),
    ...(retryAfterMs !== undefined && { retryAfterMs }),
  };
  return { kind: kindOf(status, message, error), ...base };
}

function kindOf(status: number | undefined, message: string, error: unknown): ErrorKind {
  if (OVERFLOW_PATTERNS.some((pattern) => pattern.test(message))) return "context_overflow";
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return /quota|billing|insufficient/i.test(message) ? "auth" : "rate_limit";
  if (status === 529 || status === 503 || /overloaded/i.test(message)) return "overloaded";
  if (status === 413) return "context_overflow";
  if (status !== undefined && status >= 500) return "server";
  if (status !== undefined && status >= 400) return "invalid_request";
  if (isNetworkError(error)) return "network";
  return "unknown";
}

function isAbortError(error: unknown): boolean {
  const name = fieldOf(error, "name");
  return name === "AbortError" || name === "APIUserAbortError";
}

function isNetworkError(error: unknown): boolean {
  const name = String(fieldOf(error, "name") ?? "");
  if (name === "APIConnectionError" || name === "APIConnectionTimeoutError") return true;
  const code = String(fieldOf(error, "code") ?? fieldOf(fieldOf(error, "cause"), "code") ?? "");
  return (
    /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|ETIMEDOUT|EPIPE|EAI_AGAIN|UND_ERR)/.test(code) ||
    /terminated|socket|fetch failed|network/i.test(errorText(error))
  );
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.message}${cause}`;
  }
  if (typeof error === "string") return error;
  const nested = fieldOf(error, "error");
  const message = fieldOf(nested, "message") ?? fieldOf(error, "message");
  if (typeof message === "string") return message;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}

/** Reads Retry-After (seconds or HTTP date) and retry-after-ms from a Headers object or a plain record. */
export function retryAfterFrom(headers: unknown, now = Date.now()): number | undefined {
  const get = (name: string): string | undefined => {
    if (headers && typeof (headers as Headers).get === "function")
      return (headers as Headers).get(name) ?? undefined;
    const value = fieldOf(headers, name);
    return typeof value === "string" ? value : undefined;
  };
  const ms = Number(get("retry-after-ms"));
  if (get("retry-after-ms") !== undefined && Number.isFinite(ms)) return Math.max(0, ms);
  const raw = get("retry-after");
  if (raw === undefined) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function fieldOf(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

function numberField(value: unknown, key: string): number | undefined {
  const field = fieldOf(value, key);
  return typeof field === "number" ? field : undefined;
}
