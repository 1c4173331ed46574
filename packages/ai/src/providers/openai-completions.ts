import { randomUUID } from "node:crypto";
import { classifyError, type Failure } from "../errors.js";
import type { AssistantMessageBuilder } from "../message-builder.js";
import { postForEvents, readEvents, StreamPayloadError } from "../sse-transport.js";
import { registerProvider } from "../stream.js";
import type { Usage } from "../types.js";
import { baseUrlFor } from "./base-url.js";
import { defineProvider, type ProviderRun } from "./define-provider.js";
import { buildCompletionsRequest } from "./openai-completions-request.js";
import { ThinkTagSplitter } from "./think-tags.js";

/**
 * OpenAI Chat Completions and every compatible server (Ollama, vLLM, llama.cpp, LM Studio,
 * DeepSeek, Groq, xAI, Mistral, OpenRouter), over tern's own transport (`sse-transport.ts`).
 * Returns at once; every failure ends the stream with an error event and keeps partial content.
 */
export const streamOpenAICompletions = defineProvider(run);

const DEFAULT_BASE_URL = "https://api.openai.com/v1";

async function run({ model, context, options, apiKey, builder }: Parameters<ProviderRun>[0]) {
  const body = buildCompletionsRequest(model, context, options);
  options.onPayload?.(body);
  const response = await postForEvents({
    url: `${trimSlash(baseUrlFor(model, options, DEFAULT_BASE_URL))}/chat/completions`,
    headers: { authorization: `Bearer ${apiKey}`, ...model.headers, ...options.headers },
    body,
    signal: options.signal,
    fetch: options.fetch,
  });
  builder.start();
  const reader = new CompletionsChunkReader(builder);
  try {
    await readEvents(response, (event) => reader.readEvent(event.data));
  } catch (error) {
    reader.flushText();
    builder.fail(midStreamFailure(error, options.signal));
    return;
  }
  reader.end();
}

// ---------------------------------------------------------------- wire shapes (loose on purpose)

interface RawToolCallDelta {
  index?: number;
  id?: string | null;
  type?: string;
  function?: { name?: string | null; arguments?: unknown };
}

type RawContentPart =
  | { type: "text"; text?: string }
  | { type: "thinking"; thinking?: string | Array<{ type?: string; text?: string }> }
  | { type: string; [key: string]: unknown };

interface RawDelta {
  content?: string | RawContentPart[] | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  reasoning_text?: string | null;
  refusal?: string | null;
  tool_calls?: RawToolCallDelta[] | null;
}

interface RawUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  /** DeepSeek's older name for cached prompt tokens. */
  prompt_cache_hit_tokens?: number;
}

interface RawChoice {
  index?: number;
  delta?: RawDelta | null;
  finish_reason?: string | null;
  usage?: RawUsage | null;
}

interface RawChunk {
  id?: string;
  choices?: RawChoice[] | null;
  usage?: RawUsage | null;
  x_groq?: { usage?: RawUsage | null } | null;
}

// ---------------------------------------------------------------- chunk translation

/** Turns Chat Completions chunks into builder calls, tolerating what compatible servers send. */
class CompletionsChunkReader {
  private finishReason: string | undefined;
  private readonly thinkTags: ThinkTagSplitter;
  private readonly toolCalls: Array<{ key: string; index?: number; id?: string }> = [];

  constructor(private readonly builder: AssistantMessageBuilder) {
    this.thinkTags = new ThinkTagSplitter((kind, text) =>
      kind === "thinking" ? builder.thinking(text) : builder.text(text),
    );
  }

  /** One `data:` payload: a chunk, `[DONE]`, or an error object some servers send mid-stream. */
  readEvent(data: string): void {
    if (data.startsWith("[DONE]")) return;
    let chunk: RawChunk & { error?: unknown };
    try {
      chunk = JSON.parse(data);
    } catch (error) {
      throw new MalformedLineError(data, error as Error);
    }
    if (chunk?.error !== undefined && chunk.error !== null) throw new StreamPayloadError(chunk.error);
    this.read(chunk);
  }

  read(chunk: RawChunk): void {
    this.builder.setResponseId(chunk.id);
    const choices = chunk.choices ?? [];
    // Usage comes in a trailing chunk with no choices (OpenAI), with the finish (Mistral), or under x_groq.
    const usage = chunk.usage ?? chunk.x_groq?.usage ?? choices[0]?.usage;
    if (usage) this.builder.setUsage(mapUsage(usage));
    for (const choice of choices) {
      if ((choice.index ?? 0) !== 0) continue; // we never ask for n > 1
      if (choice.delta) this.readDelta(choice.delta);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
  }

  /** Emits text held back while it might have been the start of a <think> tag. */
  flushText(): void {
    this.thinkTags.flush();
  }

  /** The stream ended normally: finish, or fail if the server never said it was done. */
  end(): void {
    this.flushText();
    const reason = this.finishReason;
    if (reason === undefined) {
      this.builder.fail({
        kind: "network",
        message: "Stream ended before the response finished (no finish_reason received)",
      });
      return;
    }
    if (reason === "content_filter") {
      this.builder.fail({
        kind: "invalid_request",
        message: "The provider's content filter stopped the response (finish_reason: content_filter)",
      });
      return;
    }
    if (reason === "error") {
      this.builder.fail({
        kind: "server",
        message: "The provider ended the stream with finish_reason: error",
      });
      return;
    }
    this.fillMissingIds();
    const hasCalls = this.toolCalls.length > 0;
    if (reason === "length") this.builder.finish("length");
    else if ((reason === "tool_calls" || reason === "function_call") && hasCalls)
      this.builder.finish("toolUse");
    else this.builder.finish("stop"); // the builder turns "stop" into "toolUse" when calls arrived
  }

  private readDelta(delta: RawDelta): void {
    const reasoning = firstNonEmpty(delta.reasoning_content, delta.reasoning, delta.reasoning_text);
    if (reasoning) this.builder.thinking(reasoning);
    if (typeof delta.content === "string") this.thinkTags.push(delta.content);
    else if (Array.isArray(delta.content)) for (const part of delta.content) this.readPart(part);
    if (typeof delta.refusal === "string") this.builder.text(delta.refusal);
    if (Array.isArray(delta.tool_calls)) {
      this.flushText();
      for (const call of delta.tool_calls) this.readToolCall(call);
    }
  }

  /** Mistral sends content as parts: text, or thinking holding its own text parts. */
  private readPart(part: RawContentPart): void {
    if (part.type === "text" && typeof part.text === "string") this.thinkTags.push(part.text);
    else if (part.type === "thinking") {
      const thinking = part.thinking;
      if (typeof thinking === "string") this.builder.thinking(thinking);
      else if (Array.isArray(thinking))
        for (const inner of thinking) if (typeof inner?.text === "string") this.builder.thinking(inner.text);
    }
  }

  private readToolCall(call: RawToolCallDelta): void {
    const id = typeof call.id === "string" && call.id !== "" ? call.id : undefined;
    const name =
      typeof call.function?.name === "string" && call.function.name !== "" ? call.function.name : undefined;
    const rawArguments = call.function?.arguments;
    const args =
      typeof rawArguments === "string"
        ? rawArguments
        : rawArguments != null
          ? JSON.stringify(rawArguments) // a few servers send the arguments as an object
          : "";
    const key = this.toolCallKey(typeof call.index === "number" ? call.index : undefined, id);
    if (this.builder.hasToolCall(key)) this.builder.toolCallPatch(key, { id, name });
    else this.builder.toolCallStart(key, id ?? "", name ?? "");
    this.builder.toolCallArguments(key, args);
  }

  /**
   * Which call a delta continues. By `index` when present (it may start at 1); without one
   * (Mistral), by id, and an id-less delta continues the latest call. A new id under a known
   * index is a new call: some servers number every call 0.
   */
  private toolCallKey(index: number | undefined, id: string | undefined): string {
    let found =
      index !== undefined
        ? this.toolCalls.findLast((call) => call.index === index)
        : id !== undefined
          ? this.toolCalls.find((call) => call.id === id)
          : this.toolCalls.at(-1);
    if (found && id !== undefined && found.id !== undefined && found.id !== id) found = undefined;
    if (found) {
      found.id ??= id;
      return found.key;
    }
    const key = `call:${this.toolCalls.length}`;
    this.toolCalls.push({ key, ...(index !== undefined && { index }), ...(id !== undefined && { id }) });
    return key;
  }

  /** A tool call needs an id for its result to be paired on replay; a few local servers send none. */
  private fillMissingIds(): void {
    for (const part of this.builder.message.content) {
      if (part.type === "toolCall" && part.id === "") part.id = `call_${randomUUID().slice(0, 8)}`;
    }
  }
}

/**
 * input excludes cached prompt tokens; output includes reasoning. xAI counts reasoning outside
 * completion_tokens (its total_tokens = prompt + completion + reasoning), so add it back there.
 */
function mapUsage(raw: RawUsage): Pick<Usage, "input" | "output" | "cacheRead"> {
  const prompt = raw.prompt_tokens ?? 0;
  const cached = raw.prompt_tokens_details?.cached_tokens ?? raw.prompt_cache_hit_tokens ?? 0;
  const completion = raw.completion_tokens ?? 0;
  const reasoning = raw.completion_tokens_details?.reasoning_tokens ?? 0;
  const reasoningOutside = reasoning > 0 && raw.total_tokens === prompt + completion + reasoning;
  return {
    input: Math.max(0, prompt - cached),
    output: reasoningOutside ? completion + reasoning : completion,
    cacheRead: cached,
  };
}

/** A `data:` line that is not JSON. */
class MalformedLineError extends Error {
  constructor(
    readonly line: string,
    cause: Error,
  ) {
    super(cause.message);
  }
}

/** Failures after the response started: a cut connection, a malformed line, an error payload. */
function midStreamFailure(error: unknown, signal: AbortSignal | undefined): Failure {
  if (signal?.aborted) return classifyError(error, signal);
  if (error instanceof MalformedLineError) {
    const line = ` in data line ${JSON.stringify(truncate(error.line, 200))}`;
    return { kind: "server", message: `Malformed data in the response stream${line}: ${error.message}` };
  }
  if (error instanceof StreamPayloadError) return error.failure;
  const failure = classifyError(error, signal);
  if (failure.kind !== "network") return failure;
  return { ...failure, message: `Stream ended before the response finished: ${failure.message}` };
}

function trimSlash(url: string): string {
  return url.endsWith("/") ? url.slice(0, -1) : url;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function firstNonEmpty(...values: Array<string | null | undefined>): string | undefined {
  for (const value of values) if (typeof value === "string" && value !== "") return value;
  return undefined;
}

registerProvider("openai-completions", streamOpenAICompletions);
