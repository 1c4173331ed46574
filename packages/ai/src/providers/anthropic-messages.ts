import Anthropic from "@anthropic-ai/sdk";
import { classifyError, type Failure } from "../errors.js";
import type { AssistantMessageBuilder } from "../message-builder.js";
import { registerProvider } from "../stream.js";
import type { ErrorKind, StopReason } from "../types.js";
import { buildAnthropicRequest } from "./anthropic-messages-request.js";
import { defineProvider, type ProviderRun } from "./define-provider.js";

type Event = Anthropic.RawMessageStreamEvent;

/** Anthropic Messages API through the official `@anthropic-ai/sdk` client. Never throws. */
export const streamAnthropicMessages = defineProvider(run);

async function run({ model, context, options, apiKey, builder }: Parameters<ProviderRun>[0]) {
  const client = new Anthropic({
    apiKey,
    // The client adds /v1/messages itself; accept base URLs written with or without /v1.
    baseURL: model.baseUrl?.replace(/\/+$/, "").replace(/\/v1$/, ""),
    // tern's retry.ts decides about retries, and only before any output.
    maxRetries: 0,
    defaultHeaders: { ...model.headers, ...options.headers },
  });
  const params = buildAnthropicRequest(model, context, options);
  options.onPayload?.(params);
  const translator = new MessagesTranslator(builder);
  try {
    // The client skips `ping` events and events without an `event:` line, and throws on `event: error`.
    const events = await client.messages.create(params, { signal: options.signal });
    for await (const event of events) {
      translator.handle(event);
      if (builder.isSettled) break;
    }
  } catch (error) {
    return builder.fail(failureOf(error, options.signal));
  }
  if (builder.isSettled) return;
  // The client ends the iteration quietly when the request is aborted.
  if (options.signal?.aborted) return builder.fail(classifyError(undefined, options.signal));
  builder.fail({ kind: "network", message: "Stream ended before message_stop" });
}

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

/** HTTP errors are classified by status; an `error` event inside the stream by its error type. */
function failureOf(error: unknown, signal: AbortSignal | undefined): Failure {
  const failure = classifyError(error, signal);
  if (!(error instanceof Anthropic.APIError) || failure.kind === "aborted") return failure;
  const body = error.error as { error?: { type?: unknown; message?: unknown } } | undefined;
  const apiMessage = typeof body?.error?.message === "string" ? body.error.message : undefined;
  const type = error.type ?? (typeof body?.error?.type === "string" ? body.error.type : undefined);
  // The client's own message is the raw JSON body; the API's message reads better.
  if (apiMessage) failure.message = error.status ? `${error.status} ${apiMessage}` : apiMessage;
  if (error.status === undefined && type) {
    const byType = TYPE_KINDS[type];
    const byMessage = classifyError(new Error(failure.message)).kind;
    if (byMessage === "context_overflow") failure.kind = byMessage;
    else if (byType) failure.kind = byType;
  }
  return failure;
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
