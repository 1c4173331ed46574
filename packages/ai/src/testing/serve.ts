// The scripted model over loopback HTTP: a real server on 127.0.0.1 that answers each request with
// the next step of a script, streamed in one provider's wire format, and records every request it
// received. Tests point a provider (or a whole tern process) at `baseUrl` and assert on `requests`.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type FauxReply, normalizeReply } from "../providers/faux.js";
import { estimateTextTokens } from "../tokens.js";
import type { Api, Model } from "../types.js";
import { encodeReply, errorBody, errorStatus, type Wire } from "./wires.js";

/** Bytes served as they are, for tests of the transport itself (captured streams, bad framing). */
export type Exchange =
  | {
      kind: "sse";
      body: string;
      /** Byte offsets to split the writes at. */
      chunks?: number[];
      status?: number;
      headers?: Record<string, string>;
      /** Drop the connection at this byte offset. */
      cutAfter?: number;
      /** Stop writing at this byte offset and hold the response open until the client goes away. */
      holdAfter?: number;
      /** Pause after each write. */
      delayMs?: number;
    }
  | { kind: "json"; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: "hang" };

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  /** The parsed JSON body (the raw text when it is not JSON). */
  body: unknown;
  /** 0 for the first request this server received. */
  index: number;
}

/** A reply (served in the server's wire format) or raw bytes. */
export type ServedReply = FauxReply | Exchange;

/** One step of a script: a reply, or a function that reads the request and decides. */
export type ScriptStep = ServedReply | ((request: RecordedRequest) => ServedReply | Promise<ServedReply>);

export interface ServeOptions {
  /** The wire format replies are streamed in. Default "openai-completions". */
  wire?: Wire;
  /** Answers every request the queue has no step for (a model whose reply depends on the request). */
  fallback?: (request: RecordedRequest) => ServedReply | Promise<ServedReply>;
}

export interface ScriptServer {
  /** http://127.0.0.1:port, without a path. */
  readonly baseUrl: string;
  /** The base URL `wire`'s provider takes (`/v1` for OpenAI, the bare origin for Anthropic). */
  readonly providerUrl: string;
  readonly wire: Wire;
  /** A model of `wire`'s api pointed at this server. */
  model(overrides?: Partial<Model>): Model;
  /** Every request received so far, in order. */
  readonly requests: RecordedRequest[];
  /** Queues more steps, served after the ones already queued. */
  push(...steps: ScriptStep[]): void;
  /** Steps queued and not yet served. */
  readonly pending: number;
  /** From now on requests are recorded but not answered until `release()`: a run held at a model call. */
  hold(): void;
  release(): void;
  /** Resolves once `count` requests have arrived (the test's timeout is the ceiling). */
  requestsReceived(count: number): Promise<void>;
  close(): Promise<void>;
}

let nextReply = 1;

/** Serves `script` on a free loopback port until `close()`. */
export async function serveScript(
  script: ScriptStep[] = [],
  options: ServeOptions = {},
): Promise<ScriptServer> {
  const wire = options.wire ?? "openai-completions";
  const queue = [...script];
  const requests: RecordedRequest[] = [];
  const waiting = new Set<() => void>();
  const open = new Set<ServerResponse>();
  let held: (() => void)[] | undefined;

  const answer = async (request: RecordedRequest, raw: string, res: ServerResponse) => {
    const step = queue.shift();
    const reply =
      typeof step === "function" ? await step(request) : (step ?? (await options.fallback?.(request)));
    if (reply === undefined) {
      const message = `scripted model: no scripted reply left (request ${request.index + 1})`;
      return writeJson(res, 500, errorBody(wire, "invalid_request", message));
    }
    if (typeof reply === "object" && "kind" in reply) return writeExchange(res, reply);
    return writeReply(res, wire, reply, estimateTextTokens(raw));
  };

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {}
    const request = {
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body,
      index: requests.length,
    };
    requests.push(request);
    for (const check of [...waiting]) check();
    open.add(res);
    res.on("close", () => open.delete(res));
    const go = () =>
      void answer(request, raw, res).catch((error: unknown) => {
        if (!res.headersSent) writeJson(res, 500, errorBody(wire, "server", `scripted model: ${error}`));
        else res.destroy();
      });
    if (held) held.push(go);
    else go();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const providerUrl = wire === "anthropic-messages" ? baseUrl : `${baseUrl}/v1`;
  return {
    baseUrl,
    providerUrl,
    wire,
    model: (overrides = {}) => scriptedModel(wire, providerUrl, overrides),
    requests,
    push: (...steps) => queue.push(...steps),
    get pending() {
      return queue.length;
    },
    hold: () => {
      held ??= [];
    },
    release: () => {
      const go = held ?? [];
      held = undefined;
      for (const answer of go) answer();
    },
    requestsReceived: (count) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (requests.length < count) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
      }),
    close: async () => {
      held = undefined;
      for (const res of open) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function scriptedModel(wire: Wire, baseUrl: string, overrides: Partial<Model>): Model {
  const provider = wire === "anthropic-messages" ? "anthropic" : "openai";
  return {
    id: "scripted",
    name: "Scripted model",
    api: wire satisfies Api,
    provider,
    baseUrl,
    contextWindow: 128_000,
    maxOutputTokens: 4_096,
    abilities: { toolCall: true, jsonMode: true, reasoning: true, images: true },
    prices: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1 },
    ...overrides,
  };
}

async function writeReply(res: ServerResponse, wire: Wire, step: FauxReply, input: number): Promise<void> {
  const reply = normalizeReply(step);
  const error = reply.error;
  if (error?.status !== undefined) {
    const headers: Record<string, string> = {};
    if (error.retryAfterMs !== undefined)
      headers["retry-after"] = String(Math.ceil(error.retryAfterMs / 1000));
    return writeJson(
      res,
      errorStatus(error.kind, error.status),
      errorBody(wire, error.kind, error.message),
      headers,
    );
  }
  const events = encodeReply(wire, reply, nextReply++, input);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const sent = reply.cut ? events.content : [...events.content, ...events.end];
  for (const [index, event] of sent.entries()) {
    // A held reply waits for its release, or for the client to go (an aborted run).
    if (index === reply.holdAfter?.deltas) await Promise.race([reply.holdAfter.until, closed(res)]);
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (res.destroyed) return;
    // Wait for each write to flush: the client sees the stream event by event.
    await new Promise<void>((resolve) => res.write(event, () => resolve()));
  }
  // A cut reply ends here too, without its closing events: a server that stopped mid-reply.
  res.end();
}

async function writeExchange(res: ServerResponse, exchange: Exchange): Promise<void> {
  if (exchange.kind === "hang") return;
  if (exchange.kind === "json") return writeJson(res, exchange.status, exchange.body, exchange.headers);
  res.writeHead(exchange.status ?? 200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    ...exchange.headers,
  });
  const bytes = Buffer.from(exchange.body, "utf8");
  const end = exchange.cutAfter ?? exchange.holdAfter ?? bytes.length;
  const cuts = [...(exchange.chunks ?? []).filter((c) => c > 0 && c < end), end].sort((a, b) => a - b);
  let from = 0;
  for (const to of cuts) {
    if (res.destroyed) return;
    await new Promise<void>((resolve) => res.write(bytes.subarray(from, to), () => resolve()));
    from = to;
    if (exchange.delayMs) await new Promise((resolve) => setTimeout(resolve, exchange.delayMs));
  }
  // A held stream stays open (closed by the client, or by close()).
  if (exchange.holdAfter !== undefined) return;
  // A cut stream ends the socket without the rest of the body: the client sees a truncated response.
  if (exchange.cutAfter !== undefined) res.socket?.destroy();
  else res.end();
}

function closed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) resolve();
    else res.once("close", () => resolve());
  });
}

function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      data += chunk;
    });
    req.on("end", () => resolve(data));
    req.on("error", reject);
  });
}
