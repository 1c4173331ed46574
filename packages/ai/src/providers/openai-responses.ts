import type OpenAI from "openai";
import { classifyError, type Failure } from "../errors.js";
import type { AssistantMessageBuilder } from "../message-builder.js";
import { postForEvents, readEvents, STOP } from "../sse-transport.js";
import { registerProvider } from "../stream.js";
import type { ErrorKind, TextContent, ThinkingContent, ToolCall } from "../types.js";
import { baseUrlFor } from "./base-url.js";
import { defineProvider, type ProviderRun } from "./define-provider.js";
import { buildResponsesRequest, encodeMessageRef } from "./openai-responses-request.js";

type Event = OpenAI.Responses.ResponseStreamEvent;
type OutputItem = OpenAI.Responses.ResponseOutputItem;

/**
 * OpenAI Responses API over tern's own transport (`sse-transport.ts`); the `openai` package gives
 * only the wire types. Never throws; failures end the stream.
 */
export const streamOpenAIResponses = defineProvider(run);

async function run({ model, context, options, apiKey, builder }: Parameters<ProviderRun>[0]) {
  const params = buildResponsesRequest(model, context, options);
  options.onPayload?.(params);
  const translator = new ResponsesTranslator(builder);
  try {
    const base = baseUrlFor(model, options, DEFAULT_BASE_URL);
    const response = await postForEvents({
      url: `${base.replace(/\/+$/, "")}/responses`,
      headers: { authorization: `Bearer ${apiKey}`, ...model.headers, ...options.headers },
      body: params,
      signal: options.signal,
      fetch: options.fetch,
    });
    await readEvents(response, ({ data }) => {
      if (data.startsWith("[DONE]")) return STOP;
      const event = JSON.parse(data) as Event & { error?: { code?: unknown; message?: unknown } };
      // Like the vendor client: an event with a top-level `error` object is a failure.
      if (event?.error) {
        const message =
          typeof event.error.message === "string" ? event.error.message : JSON.stringify(event.error);
        builder.fail(failureFromCode(event.error.code, message));
        return STOP;
      }
      translator.handle(event);
      return builder.isSettled ? STOP : undefined;
    });
  } catch (error) {
    return builder.fail(classifyError(error, options.signal));
  }
  if (builder.isSettled) return;
  builder.fail({ kind: "network", message: "Stream ended before response.completed" });
}

const DEFAULT_BASE_URL = "https://api.openai.com/v1";

const CODE_KINDS: Record<string, ErrorKind> = {
  context_length_exceeded: "context_overflow",
  rate_limit_exceeded: "rate_limit",
  insufficient_quota: "auth",
  invalid_api_key: "auth",
  server_error: "server",
  server_is_overloaded: "overloaded",
  slow_down: "overloaded",
  invalid_prompt: "invalid_request",
  invalid_request_error: "invalid_request",
};

/** A failure reported inside the stream (`error` event, `response.failed`): classified by its code. */
function failureFromCode(code: unknown, message: string): Failure {
  const known = typeof code === "string" ? CODE_KINDS[code] : undefined;
  return { kind: known ?? classifyError(new Error(message)).kind, message };
}

interface ItemState {
  /** Index of this item's text or thinking block in the message content. */
  contentIndex?: number;
  summaryIndex?: number;
  rawArguments: string;
  toolKey?: string;
  toolIndex?: number;
}

/**
 * Turns Responses events into builder calls. Items are tracked by `output_index`: some servers
 * change `item_id` between the events of one item.
 */
class ResponsesTranslator {
  private readonly items = new Map<number, ItemState>();
  /** The output index whose text or thinking block is the builder's last block. */
  private owner: number | undefined;

  constructor(private readonly builder: AssistantMessageBuilder) {}

  handle(event: Event): void {
    switch (event.type) {
      case "response.created":
        this.builder.setResponseId(event.response.id);
        this.builder.start();
        break;
      case "response.output_item.added":
        this.itemAdded(event.output_index, event.item);
        break;
      case "response.reasoning_summary_text.delta":
        this.thinkingDelta(event.output_index, event.delta, event.summary_index);
        break;
      case "response.reasoning_text.delta":
        this.thinkingDelta(event.output_index, event.delta, event.content_index);
        break;
      case "response.output_text.delta":
      case "response.refusal.delta":
        this.textDelta(event.output_index, event.delta);
        break;
      case "response.function_call_arguments.delta":
        this.argumentsDelta(event.output_index, event.item_id, event.delta);
        break;
      case "response.output_item.done":
        this.itemDone(event.output_index, event.item);
        break;
      case "response.completed":
      case "response.incomplete":
        this.completed(event.response);
        break;
      case "response.failed": {
        const error = event.response.error;
        this.builder.fail(failureFromCode(error?.code, error?.message ?? "Response failed"));
        break;
      }
      case "error": {
        // Documented at the top level; some servers nest it under `error`.
        const nested = (event as { error?: { code?: string; message?: string } }).error;
        const message = event.message ?? nested?.message ?? "Error event in the response stream";
        this.builder.fail(failureFromCode(event.code ?? nested?.code, message));
        break;
      }
    }
  }

  private state(outputIndex: number): ItemState {
    let state = this.items.get(outputIndex);
    if (!state) {
      state = { rawArguments: "" };
      this.items.set(outputIndex, state);
    }
    return state;
  }

  private itemAdded(outputIndex: number, item: OutputItem): void {
    const state = this.state(outputIndex);
    if (item.type !== "function_call") return;
    state.toolKey = `item:${outputIndex}`;
    state.toolIndex = this.builder.toolCallStart(state.toolKey, item.call_id, item.name, item.id);
    if (item.arguments) this.appendArguments(state, item.arguments);
  }

  /** Closes a text/thinking block of another item so this item's content gets its own block. */
  private claim(outputIndex: number, state: ItemState): void {
    if (state.contentIndex !== undefined || this.owner === outputIndex) return;
    const content = this.builder.message.content;
    if (content.at(-1)?.type !== "toolCall") this.builder.end();
  }

  private textDelta(outputIndex: number, delta: string): void {
    const state = this.state(outputIndex);
    if (delta === "") return;
    this.claim(outputIndex, state);
    this.builder.text(delta);
    this.own(outputIndex, state);
  }

  private thinkingDelta(outputIndex: number, delta: string, partIndex: number): void {
    const state = this.state(outputIndex);
    if (delta === "") return;
    this.claim(outputIndex, state);
    // Summary parts of one reasoning item become one thinking block, a blank line apart.
    const separate = state.summaryIndex !== undefined && state.summaryIndex !== partIndex;
    this.builder.thinking(separate ? `\n\n${delta}` : delta);
    state.summaryIndex = partIndex;
    this.own(outputIndex, state);
  }

  private own(outputIndex: number, state: ItemState): void {
    state.contentIndex = this.builder.message.content.length - 1;
    this.owner = outputIndex;
  }

  private argumentsDelta(outputIndex: number, itemId: string, delta: string): void {
    const state = this.state(outputIndex);
    if (!state.toolKey) {
      // Arguments without an announced item: open the call and let output_item.done name it.
      state.toolKey = `item:${outputIndex}`;
      state.toolIndex = this.builder.toolCallStart(state.toolKey, "", "", itemId);
    }
    this.appendArguments(state, delta);
  }

  private appendArguments(state: ItemState, delta: string): void {
    state.rawArguments += delta;
    this.builder.toolCallArguments(state.toolKey!, delta);
  }

  private itemDone(outputIndex: number, item: OutputItem): void {
    const state = this.state(outputIndex);
    if (item.type === "function_call") {
      if (!state.toolKey) this.itemAdded(outputIndex, { ...item, arguments: "" });
      const key = state.toolKey!;
      this.builder.toolCallPatch(key, { id: item.call_id, name: item.name });
      // The done item is authoritative; add what the deltas left out.
      const rest = missingSuffix(state.rawArguments, item.arguments);
      if (rest) this.appendArguments(state, rest);
      // Keep the final item id: some servers change it between events.
      const call = this.builder.message.content[state.toolIndex!] as ToolCall | undefined;
      if (call && item.id) call.signature = item.id;
      this.builder.end(key);
    } else if (item.type === "reasoning") {
      this.reasoningDone(outputIndex, state, item);
    } else if (item.type === "message") {
      const full = item.content
        .map((part) => (part.type === "output_text" ? part.text : part.refusal))
        .join("");
      this.completeBlock(outputIndex, state, full, (delta) => this.builder.text(delta));
      const part = this.blockOf(state) as TextContent | undefined;
      const phase = item.phase ?? undefined;
      if (part) part.signature = encodeMessageRef({ id: item.id, ...(phase && { phase }) });
      this.endBlock(state);
    }
  }

  private reasoningDone(outputIndex: number, state: ItemState, item: OpenAI.Responses.ResponseReasoningItem) {
    const summary = item.summary.map((part) => part.text).join("\n\n");
    const full = summary || (item.content ?? []).map((part) => part.text).join("\n\n");
    // The whole item is the signature: replaying it (with encrypted_content) restores the reasoning.
    const signature = JSON.stringify(item);
    if (state.contentIndex === undefined) {
      this.claim(outputIndex, state);
      this.builder.thinkingBlock({ type: "thinking", thinking: full, signature });
      state.contentIndex = this.builder.message.content.length - 1;
      this.owner = outputIndex;
      return;
    }
    this.completeBlock(outputIndex, state, full, (delta) => this.builder.thinking(delta));
    const part = this.blockOf(state) as ThinkingContent | undefined;
    if (part) part.signature = signature;
    this.endBlock(state);
  }

  /** Appends what the deltas missed when the done item holds more (the deltas are a prefix of it). */
  private completeBlock(outputIndex: number, state: ItemState, full: string, append: (d: string) => void) {
    const part = this.blockOf(state);
    const streamed = part ? (part.type === "text" ? part.text : (part as ThinkingContent).thinking) : "";
    const rest = missingSuffix(streamed, full);
    if (!rest) return;
    if (part && !this.isLast(state)) return; // another block followed; it cannot grow any more
    this.claim(outputIndex, state);
    append(rest);
    this.own(outputIndex, state);
  }

  private blockOf(state: ItemState) {
    return state.contentIndex === undefined ? undefined : this.builder.message.content[state.contentIndex];
  }

  private isLast(state: ItemState): boolean {
    return state.contentIndex === this.builder.message.content.length - 1;
  }

  private endBlock(state: ItemState): void {
    // Only the last block can still be open in the builder.
    if (this.isLast(state)) this.builder.end();
  }

  private completed(response: OpenAI.Responses.Response): void {
    const usage = response.usage;
    if (usage) {
      const cached = usage.input_tokens_details?.cached_tokens ?? 0;
      this.builder.setUsage({
        input: usage.input_tokens - cached,
        cacheRead: cached,
        output: usage.output_tokens,
      });
    }
    this.builder.setResponseId(response.id);
    if (response.status === "completed" || response.status === undefined) {
      this.builder.finish("stop");
      return;
    }
    const reason = response.incomplete_details?.reason;
    if (response.status === "incomplete" && reason === "max_output_tokens") {
      this.builder.finish("length");
      return;
    }
    const message =
      reason === "content_filter"
        ? "The response was stopped by the content filter"
        : `The response ended with status "${response.status}"${reason ? ` (${reason})` : ""}`;
    this.builder.fail({ kind: reason === "content_filter" ? "invalid_request" : "unknown", message });
  }
}

/** The part of `full` that `streamed` lacks, when `streamed` is a strict prefix of it. */
function missingSuffix(streamed: string, full: string | undefined): string {
  if (!full || full.length <= streamed.length || !full.startsWith(streamed)) return "";
  return full.slice(streamed.length);
}

registerProvider("openai-responses", streamOpenAIResponses);
