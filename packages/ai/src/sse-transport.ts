import { createParser, type EventSourceMessage } from "eventsource-parser";
import { classifyError, type Failure } from "./errors.js";
import type { ModelFetch } from "./types.js";
import { Agent, fetch } from "./undici-parts.js";

/**
 * tern's own HTTP transport for streamed model calls: POST a JSON body with undici's `fetch`
 * through one keep-alive agent per origin, and hand each SSE event (parsed by
 * `eventsource-parser`) to a callback as it arrives. Vendor clients cost most of a turn's CPU
 * (a client per call, an async iterator per chunk, eager formatting); this is the hot path
 * without them. Non-2xx answers become an `HttpError` carrying what `classifyError` reads:
 * status, headers (Retry-After) and the provider's own error message.
 */

/** Like the vendor clients' default: a server may think for minutes before its first byte. */
const HEADERS_TIMEOUT_MS = 600_000;
/** The longest silence allowed between two chunks of a streamed body. */
const BODY_TIMEOUT_MS = 600_000;
/** Idle sockets are kept this long for the next turn (servers usually close after 5 s or more). */
const KEEP_ALIVE_MS = 4_000;
/** Error bodies are read up to this size; the message is all we need from them. */
const MAX_ERROR_BODY = 64 * 1024;

const agents = new Map<string, Agent>();

/** One keep-alive connection pool per origin, shared by every call to it. */
function agentFor(url: URL): Agent {
  let agent = agents.get(url.origin);
  if (!agent) {
    agent = new Agent({
      headersTimeout: HEADERS_TIMEOUT_MS,
      bodyTimeout: BODY_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_MS,
    });
    agents.set(url.origin, agent);
  }
  return agent;
}

/** A non-2xx answer. `message` is `<status> <provider's message>`, as the vendor clients word it. */
export class HttpError extends Error {
  override name = "HttpError";
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly body: unknown,
    message: string,
  ) {
    super(message);
  }
}

/**
 * An error object the server sent inside an otherwise good stream (`data: {"error": {...}}`).
 * OpenRouter puts an HTTP-like status in `code`; it decides the kind when present.
 */
export class StreamPayloadError extends Error {
  readonly failure: Failure;
  constructor(payload: unknown) {
    const detail = errorDetail({ error: payload }) ?? "unknown error";
    super(detail);
    const rawCode =
      payload !== null && typeof payload === "object" ? (payload as { code?: unknown }).code : undefined;
    const code = typeof rawCode === "number" ? rawCode : Number(rawCode);
    const classified = classifyError(
      Object.assign(new Error(detail), Number.isInteger(code) && code >= 400 && { status: code }),
    );
    this.failure = {
      ...classified,
      kind: classified.kind === "unknown" ? "server" : classified.kind,
      message: `The provider sent an error in the stream: ${classified.message}`,
    };
  }
}

export interface SseRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal?: AbortSignal;
  /** Sends the request instead of undici's `fetch` (a cassette recording or replaying). */
  fetch?: ModelFetch;
}

/** The response of a streamed call, headers received and status OK; read it with `readEvents`. */
export type SseResponse = Awaited<ReturnType<typeof fetch>>;

/** Sends the request; throws `HttpError` for a non-2xx status, or what undici throws (network, abort). */
export async function postForEvents(request: SseRequest): Promise<SseResponse> {
  const url = new URL(request.url);
  const send = request.fetch ?? fetch;
  const response = await send(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "text/event-stream",
      ...request.headers,
    },
    body: JSON.stringify(request.body),
    signal: request.signal,
    dispatcher: agentFor(url),
  });
  if (!response.ok) throw await httpError(response);
  return response;
}

/** What an event handler returns to stop reading (the answer is complete). */
export const STOP = "stop";

/**
 * Feeds the body's SSE events to `onEvent` in order, synchronously per network chunk. Resolves
 * when the body ends or `onEvent` returned `STOP`; rejects with what the body read threw (cut
 * connection, abort) or what `onEvent` threw.
 */
export async function readEvents(
  response: SseResponse,
  onEvent: (event: EventSourceMessage) => unknown,
): Promise<void> {
  const body = response.body;
  if (!body) return;
  let failure: unknown;
  let stopped = false;
  const parser = createParser({
    onEvent: (event) => {
      if (failure !== undefined || stopped) return;
      try {
        stopped = onEvent(event) === STOP;
      } catch (error) {
        failure = error;
      }
    },
  });
  const decoder = new TextDecoder();
  for await (const bytes of body) {
    parser.feed(decoder.decode(bytes, { stream: true }));
    if (failure !== undefined || stopped) {
      await body.cancel().catch(() => {});
      if (failure !== undefined) throw failure;
      return;
    }
  }
  parser.feed(decoder.decode());
  // A last event without its blank line still counts, as the vendor clients treat it.
  parser.feed("\n\n");
  if (failure !== undefined) throw failure;
}

async function httpError(response: SseResponse): Promise<HttpError> {
  const text = await readCapped(response).catch(() => "");
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  const detail = errorDetail(body) ?? (text.trim() === "" ? "status code (no body)" : text.trim());
  return new HttpError(response.status, response.headers as Headers, body, `${response.status} ${detail}`);
}

async function readCapped(response: SseResponse): Promise<string> {
  const body = response.body;
  if (!body) return "";
  const decoder = new TextDecoder();
  let text = "";
  for await (const bytes of body) {
    text += decoder.decode(bytes, { stream: true });
    if (text.length >= MAX_ERROR_BODY) {
      await body.cancel().catch(() => {});
      break;
    }
  }
  return text + decoder.decode();
}

/** The human message inside an error payload: `{error: {message}}`, `{error: "..."}` or `{message}`. */
export function errorDetail(body: unknown): string | undefined {
  if (body === null || typeof body !== "object") return undefined;
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (typeof error === "string") return error;
  if (error !== null && typeof error === "object") {
    const message = (error as Record<string, unknown>).message;
    if (typeof message === "string") return message;
    return JSON.stringify(error);
  }
  return typeof record.message === "string" ? record.message : undefined;
}
