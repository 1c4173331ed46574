// Recording: a `fetch` that sends each request through the real one and writes the exchange to the
// cassette once its body has ended (read to the end, cut, or cancelled by the reader). The caller
// gets an equivalent Response whose body is the same bytes, passed on as they arrive.
import { appendFileSync, writeFileSync } from "node:fs";
import type { ModelFetch } from "../types.js";
import {
  CassetteError,
  chunkOf,
  type Exchange,
  exchangeLine,
  headerLine,
  newHeader,
  type RecordedFailure,
  type RecordedRequest,
  type RecordedResponse,
  type StreamEnd,
} from "./format.js";
import { Scrubber, type ScrubOptions } from "./scrub.js";
import { importUndici } from "./undici-loader.js";

/** Statuses whose Response may not have a body. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

export interface RecordOptions extends ScrubOptions {
  /** What really sends the requests (default: undici's `fetch`). */
  fetch?: ModelFetch;
}

export interface CassetteRecording {
  readonly path: string;
  /** Pass as `StreamOptions.fetch` (or to a vendor client's `fetch` option). */
  readonly fetch: ModelFetch;
  /** Writes (and matches) `value` as `{{name}}` from now on, as the `placeholders` option does. */
  addPlaceholder(name: string, value: string): void;
  /** Exchanges written so far. */
  readonly recorded: number;
}

/** Starts a new cassette at `path` (replacing any file there) and records every exchange into it. */
export function recordCassette(path: string, options: RecordOptions = {}): CassetteRecording {
  const scrubber = new Scrubber(options);
  writeOrThrow(path, () => writeFileSync(path, headerLine(newHeader())));
  let recorded = 0;
  const fetch = recordingFetch(options.fetch ?? undiciFetch, scrubber, (exchange) => {
    appendExchange(path, exchange);
    recorded++;
  });
  return {
    path,
    fetch,
    addPlaceholder: (name, value) => scrubber.addPlaceholder(name, value),
    get recorded() {
      return recorded;
    },
  };
}

/** Appends one exchange line; the file was checked writable when the cassette was opened. */
export function appendExchange(path: string, exchange: Exchange): void {
  writeOrThrow(path, () => appendFileSync(path, exchangeLine(exchange)));
}

function writeOrThrow(path: string, write: () => void): void {
  try {
    write();
  } catch (error) {
    throw new CassetteError("write", `cannot write cassette ${path}: ${(error as Error).message}`);
  }
}

/** undici's `fetch`, the real sender when the host gives none; undici loads at the first request. */
export const undiciFetch = (async (input, init) => (await importUndici()).fetch(input, init)) as ModelFetch;

/** The request as the cassette keeps it: no credentials, volatile values as placeholders. */
export function captureRequest(
  input: Parameters<ModelFetch>[0],
  init: Parameters<ModelFetch>[1],
  scrubber: Scrubber,
): RecordedRequest {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  // The global Headers only normalizes names and values here, the same as undici's would.
  const headers = new Headers(init?.headers as ConstructorParameters<typeof Headers>[0]);
  const request: RecordedRequest = {
    method: (init?.method ?? "GET").toUpperCase(),
    url: scrubber.url(url),
    headers: scrubber.requestHeaders(headers),
  };
  const text = bodyText(init?.body);
  if (text === undefined) return request;
  try {
    request.body = scrubber.json(JSON.parse(text));
  } catch {
    request.bodyText = scrubber.normalized(text);
  }
  return request;
}

function bodyText(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString("utf8");
  if (body instanceof ArrayBuffer) return Buffer.from(body).toString("utf8");
  return `[a ${body.constructor?.name ?? typeof body} body, not recorded]`;
}

/** Wraps `inner` so each exchange is handed to `write` once its body has ended. */
export function recordingFetch(
  inner: ModelFetch,
  scrubber: Scrubber,
  write: (exchange: Exchange) => void,
): ModelFetch {
  return (async (input, init) => {
    const request = captureRequest(input, init, scrubber);
    const sent = performance.now();
    let real: Awaited<ReturnType<ModelFetch>>;
    try {
      real = await inner(input, init);
    } catch (error) {
      const failure = describeFailure(error);
      failure.message = scrubber.text(failure.message);
      if (failure.cause !== undefined) failure.cause = scrubber.text(failure.cause);
      write({ request, failure });
      throw error;
    }
    const headersAt = performance.now();
    const response: RecordedResponse = {
      status: real.status,
      ...(real.statusText !== "" && { statusText: real.statusText }),
      headers: scrubber.responseHeaders(real.headers),
      headersMs: Math.round(headersAt - sent),
      chunks: [],
      end: "complete",
    };
    let written = false;
    // A key the server sends in two chunks is still one key: the body's text is redacted as a stream.
    const bodyText = scrubber.textStream();
    const flushText = (ms: number) => {
      const rest = bodyText.end();
      if (rest !== "") response.chunks.push({ ms, text: rest });
    };
    const finish = (end: StreamEnd, error?: unknown) => {
      if (written) return;
      written = true;
      flushText(response.chunks.at(-1)?.ms ?? 0);
      response.end = end;
      if (error !== undefined) {
        const { message, cause } = describeFailure(error);
        response.error = scrubber.text(cause !== undefined ? `${message}: ${cause}` : message);
      }
      write({ request, response });
    };
    if (!real.body || NULL_BODY_STATUSES.has(real.status)) {
      finish("complete");
      return real;
    }
    const reader = real.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            finish("complete");
            controller.close();
            return;
          }
          const chunk = chunkOf(value, Math.round(performance.now() - headersAt));
          if ("text" in chunk) chunk.text = bodyText.push(chunk.text);
          else flushText(chunk.ms);
          response.chunks.push(chunk);
          controller.enqueue(value);
        } catch (error) {
          finish("error", error);
          controller.error(error);
        }
      },
      cancel(reason) {
        finish("cancelled");
        return reader.cancel(reason);
      },
    });
    const { Response } = await importUndici();
    return new Response(body, {
      status: real.status,
      statusText: real.statusText,
      headers: real.headers,
    });
  }) as ModelFetch;
}

/** The fields of a thrown error worth keeping; undici puts the system error and its code in `cause`. */
export function describeFailure(error: unknown): RecordedFailure {
  const err = error as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
    cause?: { code?: unknown; message?: unknown };
  };
  const code =
    typeof err?.code === "string"
      ? err.code
      : typeof err?.cause?.code === "string"
        ? err.cause.code
        : undefined;
  return {
    name: typeof err?.name === "string" ? err.name : "Error",
    message: typeof err?.message === "string" ? err.message : String(error),
    ...(typeof err?.cause?.message === "string" && { cause: err.cause.message }),
    ...(code !== undefined && { code }),
  };
}
