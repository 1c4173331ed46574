import { delay } from "../delay.js";
import { AssistantMessageEventStream } from "../event-stream.js";
import { AssistantMessageBuilder } from "../message-builder.js";
import { registerProvider } from "../stream.js";
import { estimateContextTokens, estimateTextTokens } from "../tokens.js";
import type {
  AssistantContent,
  Context,
  ErrorKind,
  Model,
  ModelAbilities,
  StopReason,
  StreamOptions,
  ToolCall,
} from "../types.js";

/** One scripted answer. A string is a text-only answer. */
export type FauxReply =
  | string
  | {
      content?: AssistantContent[] | string;
      /** Default: "toolUse" when content has tool calls, else "stop". */
      stopReason?: Exclude<StopReason, "error" | "aborted">;
      usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
      /**
       * Streams the content, then fails with this error instead of finishing. Served over HTTP
       * (`@tern/ai/testing`), an error with a `status` is that HTTP status with the provider's
       * error body instead of a stream; without one it is an error event inside the stream.
       */
      error?: { kind: ErrorKind; message: string; retryAfterMs?: number; status?: number };
      /** Streams the content, then ends the stream before the reply finished (a network failure). */
      cut?: boolean;
      /** Characters per streamed delta for this reply (default: the model's `chunkSize`). */
      chunkSize?: number;
      /** Pause before each streamed delta of this reply (default: the model's `tokenDelayMs`). */
      delayMs?: number;
      /**
       * Streams `deltas` deltas (events, over HTTP), then waits for `until` before the rest: a
       * run caught mid-answer for exactly as long as a test needs (a reload, a second tab).
       */
      holdAfter?: { deltas: number; until: Promise<unknown> };
    };

export interface FauxRequest {
  model: Model;
  context: Context;
  options: StreamOptions;
  /** 0 for the first call this faux model served. */
  callIndex: number;
}

/** A reply, or a function that sees the request and decides. */
export type FauxStep = FauxReply | ((request: FauxRequest) => FauxReply | Promise<FauxReply>);

export interface FauxOptions {
  id?: string;
  /** Delay between streamed chunks. 0 (default) only yields a microtask between chunks. */
  tokenDelayMs?: number;
  /** Characters per streamed delta. Default 4, about a token. */
  chunkSize?: number;
  contextWindow?: number;
  maxOutputTokens?: number;
  abilities?: Partial<ModelAbilities>;
  replies?: FauxStep[];
  /** Keep every request in `requests` (default true). Turn off for long benchmark runs. */
  recordRequests?: boolean;
}

export interface FauxProvider {
  readonly model: Model;
  /** Queues replies served in order, one per model call. */
  push(...steps: FauxStep[]): void;
  readonly pending: number;
  /** Every request served so far, for assertions. */
  readonly requests: FauxRequest[];
}

interface FauxScript {
  queue: FauxStep[];
  requests: FauxRequest[];
  tokenDelayMs: number;
  chunkSize: number;
  recordRequests: boolean;
  served: number;
}

const scripts = new Map<string, FauxScript>();
let nextId = 1;

/** A scripted model for tests, demos and users' own agent tests. Speaks through `stream()` like any provider. */
export function createFaux(options: FauxOptions = {}): FauxProvider {
  const id = options.id ?? `faux-${nextId++}`;
  const script: FauxScript = {
    queue: [...(options.replies ?? [])],
    requests: [],
    tokenDelayMs: options.tokenDelayMs ?? 0,
    chunkSize: Math.max(1, options.chunkSize ?? 4),
    recordRequests: options.recordRequests ?? true,
    served: 0,
  };
  scripts.set(id, script);
  const model: Model = {
    id,
    name: `Faux ${id}`,
    api: "faux",
    provider: "faux",
    contextWindow: options.contextWindow ?? 128_000,
    maxOutputTokens: options.maxOutputTokens ?? 16_384,
    abilities: { toolCall: true, jsonMode: true, reasoning: true, images: true, ...options.abilities },
    prices: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1 },
  };
  return {
    model,
    push: (...steps) => script.queue.push(...steps),
    get pending() {
      return script.queue.length;
    },
    requests: script.requests,
  };
}

export function fauxText(text: string): AssistantContent {
  return { type: "text", text };
}

export function fauxThinking(thinking: string): AssistantContent {
  return { type: "thinking", thinking };
}

let nextCallId = 1;
export function fauxToolCall(name: string, args: Record<string, unknown> = {}, id?: string): ToolCall {
  return { type: "toolCall", id: id ?? `call_faux_${nextCallId++}`, name, arguments: args };
}

export const streamFaux = (model: Model, context: Context, options: StreamOptions) => {
  const out = new AssistantMessageEventStream();
  const builder = new AssistantMessageBuilder(model, out);
  void play(model, context, options, builder).catch((error: unknown) =>
    builder.fail({
      kind: "unknown",
      message: `faux reply function threw: ${(error as Error)?.message ?? error}`,
    }),
  );
  return out;
};

async function play(
  model: Model,
  context: Context,
  options: StreamOptions,
  builder: AssistantMessageBuilder,
) {
  const script = scripts.get(model.id);
  const signal = options.signal;
  const aborted = () => builder.fail({ kind: "aborted", message: "Request was aborted" });
  if (signal?.aborted) return aborted();
  if (!script)
    return builder.fail({ kind: "invalid_request", message: `faux: unknown faux model "${model.id}"` });
  // A snapshot of what this call saw: the caller may keep appending to its arrays afterwards.
  // Messages themselves are treated as immutable once sent, so a shallow copy is enough.
  const request: FauxRequest = { model, context, options, callIndex: script.served++ };
  if (script.recordRequests) {
    request.context = { ...context, messages: [...context.messages] };
    if (context.tools) request.context.tools = [...context.tools];
    script.requests.push(request);
  }
  const step = script.queue.shift();
  if (step === undefined) {
    return builder.fail({
      kind: "invalid_request",
      message: `faux: no scripted reply left for model "${model.id}" (call ${request.callIndex + 1})`,
    });
  }
  const reply = normalizeReply(typeof step === "function" ? await step(request) : step);
  builder.setUsage({ input: estimateContextTokens(context), ...reply.usage });
  builder.start();
  const size = Math.max(1, reply.chunkSize ?? script.chunkSize);
  const pause = () => delay(reply.delayMs ?? script.tokenDelayMs, signal);
  let streamed = 0;
  // Before each delta: the scripted pause, and the hold once `holdAfter.deltas` are out.
  const beforeDelta = async () => {
    const hold = reply.holdAfter;
    if (hold && streamed++ === hold.deltas && !(await held(hold.until, signal))) return false;
    return pause();
  };
  for (const part of reply.content) {
    if (!(await pause())) return aborted();
    if (part.type === "toolCall") {
      const key = part.id;
      builder.toolCallStart(key, part.id, part.name);
      const json = JSON.stringify(part.arguments);
      for (const chunk of chunks(json, size)) {
        if (!(await beforeDelta())) return aborted();
        builder.toolCallArguments(key, chunk);
      }
      builder.end(key);
      continue;
    }
    const text = part.type === "text" ? part.text : part.thinking;
    for (const chunk of chunks(text, size)) {
      if (!(await beforeDelta())) return aborted();
      if (part.type === "text") builder.text(chunk);
      else builder.thinking(chunk);
    }
    builder.end();
  }
  builder.setUsage({ output: reply.usage?.output ?? replyOutputTokens(reply.content) });
  if (reply.error) return builder.fail(reply.error);
  if (reply.cut) return builder.fail({ kind: "network", message: CUT_MESSAGE });
  return builder.finish(reply.stopReason ?? "stop");
}

/** Waits for `until`; false as soon as the signal aborts. */
function held(until: Promise<unknown>, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => resolve(false);
    signal?.addEventListener("abort", onAbort, { once: true });
    void until.then(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    });
  });
}

/** The output tokens a reply without scripted usage reports: an estimate of its content. */
export function replyOutputTokens(content: readonly AssistantContent[]): number {
  let tokens = 0;
  for (const part of content) {
    if (part.type === "toolCall")
      tokens += estimateTextTokens(part.name) + estimateTextTokens(JSON.stringify(part.arguments));
    else tokens += estimateTextTokens(part.type === "text" ? part.text : part.thinking);
  }
  return tokens;
}

/** What a scripted reply cut mid-stream fails with. */
export const CUT_MESSAGE = "faux: the scripted reply was cut mid-stream";

export type ScriptedReply = Exclude<FauxReply, string> & { content: AssistantContent[] };

/** A reply in its one full shape: a string becomes a text block, string content a text block. */
export function normalizeReply(reply: FauxReply): ScriptedReply {
  if (typeof reply === "string") return { content: [fauxText(reply)] };
  const content = typeof reply.content === "string" ? [fauxText(reply.content)] : (reply.content ?? []);
  return { ...reply, content };
}

export function* chunks(text: string, size: number): Generator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

registerProvider("faux", streamFaux);
