// Replaying: a `fetch` that answers each request from the cassette with no network. A request is
// matched on its method, path and query and body (the origin is not compared, so a recording
// against one loopback port replays against any base URL); the body bytes come back exactly as
// recorded, chunk by chunk, at once or at the recorded pace. A request the cassette does not hold
// fails with the first difference, or, when the caller opts in, goes to the real provider and is
// appended to the cassette. Volatile text (durations, timestamps, temporary paths; normalize.ts)
// is normalized on both sides before comparing.
import { setTimeout as sleep } from "node:timers/promises";
import type { ModelFetch } from "../types.js";
import { firstDifference } from "./first-difference.js";
import {
  CassetteError,
  chunkBytes,
  type Exchange,
  type RecordedRequest,
  type RecordedResponse,
  readCassette,
} from "./format.js";
import { type Normalizer, normalizeValue, VOLATILE_NORMALIZERS } from "./normalize.js";
import { appendExchange, captureRequest, recordingFetch, undiciFetch } from "./record.js";
import type { ReplayMiss, ReplayTiming } from "./replay-modes.js";
import { Scrubber, type ScrubOptions } from "./scrub.js";
import { importUndici } from "./undici-loader.js";

export interface ReplayOptions extends ScrubOptions {
  /** "none" (default): serve at once; "real": wait as long as the recording did. */
  timing?: ReplayTiming;
  /** "fail" (default): an unrecorded request is an error; "record": send it and append it. */
  miss?: ReplayMiss;
  /** What sends unrecorded requests when `miss` is "record" (default: undici's `fetch`). */
  fetch?: ModelFetch;
  /** Rewrites applied to both bodies' strings before matching (default VOLATILE_NORMALIZERS; [] for exact). */
  normalizers?: readonly Normalizer[];
}

export interface CassetteReplay {
  readonly path: string;
  /** Pass as `StreamOptions.fetch` (or to a vendor client's `fetch` option). */
  readonly fetch: ModelFetch;
  /** Writes (and matches) `value` as `{{name}}` from now on, as the `placeholders` option does. */
  addPlaceholder(name: string, value: string): void;
  /** Exchanges served from the cassette so far. */
  readonly served: number;
  /** Exchanges the cassette holds that no request has used yet. */
  readonly unused: number;
  /** Exchanges sent to the provider and appended (`miss: "record"`). */
  readonly appended: number;
}

/** Loads the cassette at `path` (throws CassetteError when it is missing or malformed). */
export function replayCassette(path: string, options: ReplayOptions = {}): CassetteReplay {
  const cassette = readCassette(path);
  const scrubber = new Scrubber(options);
  const timing = options.timing ?? "none";
  const normalizers = options.normalizers ?? VOLATILE_NORMALIZERS;
  const exchanges = cassette.exchanges;
  const used = new Array<boolean>(exchanges.length).fill(false);
  // Each recorded request is normalized once, when first compared, not once per later request.
  const recorded: Comparable[] = [];
  const expected = (index: number) =>
    (recorded[index] ??= comparable(exchanges[index]!.request, normalizers));
  let served = 0;
  let appended = 0;
  let requests = 0;
  const recordMiss = recordingFetch(options.fetch ?? undiciFetch, scrubber, (exchange) => {
    appendExchange(path, exchange);
    appended++;
  });

  const fetch = (async (input, init) => {
    requests++;
    const request = captureRequest(input, init, scrubber);
    const actual = comparable(request, normalizers);
    const index = pick(used, expected, actual);
    if (index === undefined) {
      if (options.miss === "record") return recordMiss(input, init);
      throw mismatch(path, requests, request, actual, expected, used);
    }
    used[index] = true;
    served++;
    return serve(exchanges[index]!, timing, init?.signal ?? undefined);
  }) as ModelFetch;

  return {
    path,
    fetch,
    addPlaceholder: (name, value) => scrubber.addPlaceholder(name, value),
    get served() {
      return served;
    },
    get unused() {
      return used.filter((flag) => !flag).length;
    },
    get appended() {
      return appended;
    },
  };
}

/** The next unused exchange if it matches, else any unused one that does (concurrent calls may finish out of order). */
function pick(
  used: boolean[],
  expected: (index: number) => Comparable,
  actual: Comparable,
): number | undefined {
  const next = used.indexOf(false);
  if (next === -1) return undefined;
  if (!difference(expected(next), actual)) return next;
  for (let i = next + 1; i < used.length; i++) if (!used[i] && !difference(expected(i), actual)) return i;
  return undefined;
}

type Comparable = Record<string, unknown>;

/** What is compared: method, path with query, and body (parsed JSON, or text), normalized. */
function comparable(request: RecordedRequest, normalizers: readonly Normalizer[]): Comparable {
  const body = request.body !== undefined ? request.body : (request.bodyText ?? null);
  return {
    method: request.method,
    path: pathOf(request.url),
    body: normalizeValue(body, normalizers),
  };
}

function pathOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

function difference(expected: Comparable, actual: Comparable) {
  return firstDifference(expected, actual, "request");
}

function mismatch(
  path: string,
  ordinal: number,
  request: RecordedRequest,
  actual: Comparable,
  expected: (index: number) => Comparable,
  used: boolean[],
): CassetteError {
  const what = `request ${ordinal} (${request.method} ${pathOf(request.url)})`;
  const hint = `--replay-miss record (library: miss: "record") sends it and appends it`;
  const next = used.indexOf(false);
  if (next === -1)
    return new CassetteError(
      "mismatch",
      `replay: ${what} has no recorded exchange left (all ${used.length} used) in cassette ${path}; ${hint}`,
    );
  // Most important first: a terminal shows a failed run's message on one shortened line.
  const diff = difference(expected(next), actual)!;
  return new CassetteError(
    "mismatch",
    `replay mismatch at ${diff.path}: expected: ${diff.expected}, actual: ${diff.actual}; ` +
      `${what} vs exchange ${next + 1} of cassette ${path}; ${hint}`,
  );
}

async function serve(exchange: Exchange, timing: ReplayTiming, signal: AbortSignal | undefined) {
  const real = timing === "real";
  if ("failure" in exchange) {
    const { name, message, cause, code } = exchange.failure;
    if (real) await sleep(0, undefined, { signal });
    const error = new TypeError(
      message,
      cause !== undefined ? { cause: withCode(new Error(cause), code) } : {},
    );
    error.name = name;
    throw withCode(error, code);
  }
  const recorded = exchange.response;
  if (real) await sleep(recorded.headersMs, undefined, { signal });
  signal?.throwIfAborted();
  const { Headers, Response } = await importUndici();
  const init = {
    status: recorded.status,
    headers: new Headers(recorded.headers),
    ...(recorded.statusText !== undefined && { statusText: recorded.statusText }),
  };
  if ([101, 204, 205, 304].includes(recorded.status)) return new Response(null, init);
  return new Response(replayBody(recorded, real, signal), init);
}

/** The recorded chunks as a byte stream that ends as the recording did; an abort errors it, as undici's would. */
function replayBody(recorded: RecordedResponse, real: boolean, signal: AbortSignal | undefined) {
  let next = 0;
  let last = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        signal?.throwIfAborted();
        const chunk = recorded.chunks[next++];
        if (!chunk) {
          if (recorded.end === "error")
            controller.error(new TypeError("terminated", { cause: new Error(recorded.error ?? "body cut") }));
          else controller.close();
          return;
        }
        if (real && chunk.ms > last) await sleep(chunk.ms - last, undefined, { signal });
        last = chunk.ms;
        controller.enqueue(chunkBytes(chunk));
      } catch (error) {
        controller.error(error);
      }
    },
  });
}

function withCode<T extends Error>(error: T, code: string | undefined): T {
  if (code !== undefined) Object.assign(error, { code });
  return error;
}
