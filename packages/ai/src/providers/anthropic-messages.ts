import type Anthropic from "@anthropic-ai/sdk";
import { classifyError, type Failure } from "../errors.js";
import type { AssistantMessageBuilder } from "../message-builder.js";
import { postForEvents, readEvents, STOP } from "../sse-transport.js";
import { registerProvider } from "../stream.js";
import type { ErrorKind, StopReason } from "../types.js";
import { buildAnthropicRequest } from "./anthropic-messages-request.js";
import { baseUrlFor } from "./base-url.js";
import { defineProvider, type ProviderRun } from "./define-provider.js";

type Event = Anthropic.RawMessageStreamEvent;

/**
 * Anthropic Messages API over tern's own transport (`sse-transport.ts`); `@anthropic-ai/sdk`
 * gives only the wire types. Never throws.
 */
export const streamAnthropicMessages = defineProvider(run);

async function run({ model, context, options, apiKey, builder }: Parameters<ProviderRun>[0]) {
  const params = buildAnthropicRequest(model, context, options);
  options.onPayload?.(params);
  const translator = new MessagesTranslator(builder);
  // Accept base URLs written with or without /v1, as the vendor client did.
  const base = baseUrlFor(model, options, DEFAULT_BASE_URL).replace(/\/+$/, "").replace(/\/v1$/, "");
  try {
    const response = await postForEvents({
      url: `${base}/v1/messages`,
      headers: {
        "x-api-key": apiKey,
        "anthropic-version": ANTHROPIC_VERSION,
        ...model.headers,
        ...options.headers,
      },
      body: params,
      signal: options.signal,
      fetch: options.fetch,
    });
    await readEvents(response, ({ event, data }) => {
      // Like the vendor client: skip pings and events without a name; `event: error` is a failure.
      if (event === undefined || event === "ping" || data === "") return undefined;
      if (event === "error") {
        builder.fail(streamErrorFailure(data));
        return STOP;
      }
      translator.handle(JSON.parse(data) as Event);
      return builder.isSettled ? STOP : undefined;
    });
  } catch (error) {
    return builder.fail(classifyError(error, options.signal));
  }
  if (builder.isSettled) return;
  builder.fail({ kind: "network", message: "Stream ended before message_stop" });
}

const DEFAULT_BASE_URL = "https://api.anthropic.com";
/** The Messages API version tern's request and event shapes follow. */
const ANTHROPIC_VERSION = "2023-06-01";

const TYPE_KINDS: Record<string, ErrorKind> = {
  overloaded_error: "overloaded",
  rate_limit_error: "rate_limit",
  api_error: "server",
  timeout_error: "server",
  authentication_error: "auth",
  permission_error: "auth",
  billing_error: "auth",
  request_too_large: "context_overflow",
  invalid_request_error: "invalid_request",
  not_found_error: "invalid_request",
};

/**
 * An `error` event inside the stream, classified by its error type (a context overflow by its
 * message). HTTP errors are classified by status in classifyError.
 */
function streamErrorFailure(data: string): Failure {
  let body: { error?: { type?: unknown; message?: unknown } } | undefined;
  try {
    body = JSON.parse(data);
  } catch {}
  const message = typeof body?.error?.message === "string" ? body.error.message : data;
  const type = typeof body?.error?.type === "string" ? body.error.type : undefined;
  const byMessage = classifyError(new Error(message)).kind;
  const byType = type === undefined ? undefined : TYPE_KINDS[type];
  const kind =
    byMessage === "context_overflow"
      ? byMessage
      : (byType ?? (byMessage === "unknown" ? "server" : byMessage));
  return { kind, message };
}

const STOP_REASONS: Record<string, Exclude<StopReason, "error" | "aborted">> = {
  end_turn: "stop",
  stop_sequence: "stop",
  // A server tool paused a long turn; the caller continues it like any finished turn.
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "toolUse",
};

/** Turns Messages events into builder calls. Blocks are keyed by their stream `index`. */
class MessagesTranslator {
  private readonly blocks = new Map<
    number,
    { kind: string; key: string; sawInput: boolean; input?: unknown }
  >();
  private stopReason: string | null | undefined;

  constructor(private readonly builder: AssistantMessageBuilder) {}

  handle(event: Event): void {
    const builder = this.builder;
    switch (event.type) {
      case "message_start": {
        builder.setResponseId(event.message.id);
        const usage = event.message.usage;
        builder.setUsage({
          input: usage.input_tokens ?? 0,
          output: usage.output_tokens ?? 0,
          cacheRead: usage.cache_read_input_tokens ?? 0,
          cacheWrite: usage.cache_creation_input_tokens ?? 0,
        });
        builder.start();
        break;
      }
      case "content_block_start":
        this.blockStart(event.index, event.content_block);
        break;
      case "content_block_delta":
        this.blockDelta(event.index, event.delta);
        break;
      case "content_block_stop":
        this.blockStop(event.index);
        break;
      case "message_delta": {
        if (event.delta.stop_reason) this.stopReason = event.delta.stop_reason;
        // Later counts are cumulative and override the ones from message_start.
        const usage = event.usage;
        builder.setUsage({
          output: usage.output_tokens,
          ...(usage.input_tokens != null && { input: usage.input_tokens }),
          ...(usage.cache_read_input_tokens != null && { cacheRead: usage.cache_read_input_tokens }),
          ...(usage.cache_creation_input_tokens != null && { cacheWrite: usage.cache_creation_input_tokens }),
        });
        break;
      }
      case "message_stop":
        this.stop();
        break;
    }
  }

  private blockStart(index: number, block: Anthropic.RawContentBlockStartEvent["content_block"]): void {
    const key = `block:${index}`;
    this.blocks.set(index, { kind: block.type, key, sawInput: false });
    if (block.type === "text") {
      this.endTextOrThinking(); // consecutive text blocks stay separate
      this.builder.text(block.text);
    } else if (block.type === "thinking") {
      this.endTextOrThinking();
      this.builder.thinking(block.thinking, block.signature || undefined);
    } else if (block.type === "redacted_thinking") {
      this.builder.thinkingBlock({ type: "thinking", thinking: "", signature: block.data, redacted: true });
    } else if (block.type === "tool_use") {
      this.builder.toolCallStart(key, block.id, block.name);
      this.blocks.get(index)!.input = block.input;
    }
    // Server tool blocks (web search and friends) are not part of tern's message model.
  }

  private blockDelta(index: number, delta: Anthropic.RawContentBlockDelta): void {
    const block = this.blocks.get(index);
    if (delta.type === "text_delta") this.builder.text(delta.text);
    else if (delta.type === "thinking_delta") this.builder.thinking(delta.thinking);
    else if (delta.type === "signature_delta") this.builder.thinkingSignature(delta.signature);
    else if (delta.type === "input_json_delta" && block?.kind === "tool_use") {
      if (delta.partial_json !== "") block.sawInput = true;
      this.builder.toolCallArguments(block.key, delta.partial_json);
    }
  }

  private blockStop(index: number): void {
    const block = this.blocks.get(index);
    if (!block) return;
    if (block.kind === "tool_use") {
      // Some servers put the whole input in content_block_start and stream nothing.
      const input = block.input;
      if (!block.sawInput && input && typeof input === "object" && Object.keys(input).length > 0) {
        this.builder.toolCallArguments(block.key, JSON.stringify(input));
      }
      this.builder.end(block.key);
    } else if (block.kind === "text" || block.kind === "thinking") {
      this.endTextOrThinking();
    }
    this.blocks.delete(index);
  }

  /** The builder's open block is always its last one; tool calls are ended by key only. */
  private endTextOrThinking(): void {
    if (this.builder.message.content.at(-1)?.type !== "toolCall") this.builder.end();
  }

  private stop(): void {
    const reason = this.stopReason ?? "end_turn";
    if (reason === "refusal") {
      // The model declined for safety reasons; retrying the same request will not help.
      this.builder.fail({
        kind: "invalid_request",
        message: "The model refused to respond (stop_reason: refusal)",
      });
      return;
    }
    this.builder.finish(STOP_REASONS[reason] ?? "stop");
  }
}

registerProvider("anthropic-messages", streamAnthropicMessages);
