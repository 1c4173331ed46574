import { Allow, parse as parsePartialJson } from "partial-json";
import type { Failure } from "./errors.js";
import type { AssistantMessageEventStream } from "./event-stream.js";
import type { AssistantMessage, Model, StopReason, ThinkingContent, ToolCall } from "./types.js";
import { emptyUsage, priceUsage } from "./usage.js";

interface OpenBlock {
  index: number;
  kind: "text" | "thinking" | "toolCall";
  rawArguments: string;
  /** Length of rawArguments at the last partial parse; see shouldReparse. */
  parsedLength: number;
}

/**
 * Partial arguments are re-parsed only once the raw text grew by this fraction since the last
 * parse, so 1-character chunks cost a geometric series of parses (linear) instead of one full
 * parse per chunk (quadratic). The strict parse at the block's end is unchanged.
 */
const REPARSE_GROWTH_FRACTION = 0.25;
/** Caps the gap between parses so a large argument still updates every this many characters. */
const REPARSE_MAX_GAP = 16_384;

/**
 * Assembles one assistant message from provider deltas and emits the canonical events.
 * Providers only translate their wire format into calls on this class, so block bookkeeping,
 * incremental argument parsing and the never-throw ending live in one place.
 *
 * Events carry `partial`, the live message being built: copy it if you keep it.
 */
export class AssistantMessageBuilder {
  readonly message: AssistantMessage;
  private readonly blocks = new Map<string, OpenBlock>();
  private current: OpenBlock | undefined;
  private started = false;
  private settled = false;

  constructor(
    private readonly model: Model,
    private readonly stream: AssistantMessageEventStream,
    now: number = Date.now(),
  ) {
    this.message = {
      role: "assistant",
      content: [],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: now,
    };
  }

  get isSettled(): boolean {
    return this.settled;
  }

  /** True once any content has been emitted; a retry must not restart such a stream. */
  get hasContent(): boolean {
    return this.message.content.length > 0;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.stream.push({ type: "start", partial: this.message });
  }

  text(delta: string): void {
    if (delta === "") return;
    const block =
      this.current?.kind === "text" ? this.current : this.open("text", `text:${this.message.content.length}`);
    const part = this.message.content[block.index] as { text: string };
    part.text += delta;
    this.stream.push({ type: "text_delta", contentIndex: block.index, delta, partial: this.message });
  }

  thinking(delta: string, signature?: string): void {
    const block =
      this.current?.kind === "thinking"
        ? this.current
        : this.open("thinking", `thinking:${this.message.content.length}`);
    const part = this.message.content[block.index] as ThinkingContent;
    if (signature !== undefined) part.signature = (part.signature ?? "") + signature;
    if (delta === "") return;
    part.thinking += delta;
    this.stream.push({ type: "thinking_delta", contentIndex: block.index, delta, partial: this.message });
  }

  /** Adds to the signature of the current thinking block (Anthropic sends it as its own delta). */
  thinkingSignature(signature: string): void {
    if (this.current?.kind !== "thinking") return;
    const part = this.message.content[this.current.index] as ThinkingContent;
    part.signature = (part.signature ?? "") + signature;
  }

  /** A whole block that arrives at once (redacted thinking, encrypted reasoning). */
  thinkingBlock(part: ThinkingContent): void {
    this.open("thinking", `thinking:${this.message.content.length}`);
    const index = this.message.content.length - 1;
    this.message.content[index] = part;
    if (part.thinking !== "") {
      this.stream.push({
        type: "thinking_delta",
        contentIndex: index,
        delta: part.thinking,
        partial: this.message,
      });
    }
    this.endCurrent();
  }

  /** Opens a tool call under a provider key (stream index, item id). Returns the content index. */
  toolCallStart(key: string, id: string, name: string, signature?: string): number {
    const existing = this.blocks.get(key);
    if (existing) return existing.index;
    const block = this.open("toolCall", key);
    const call = this.message.content[block.index] as ToolCall;
    call.id = id;
    call.name = name;
    if (signature) call.signature = signature;
    return block.index;
  }

  hasToolCall(key: string): boolean {
    return this.blocks.has(key);
  }

  /** Fills an id or name that the provider sent late (some servers send them empty first). */
  toolCallPatch(key: string, patch: { id?: string; name?: string }): void {
    const block = this.blocks.get(key);
    if (!block) return;
    const call = this.message.content[block.index] as ToolCall;
    if (patch.id && !call.id) call.id = patch.id;
    if (patch.name && !call.name) call.name = patch.name;
  }

  toolCallArguments(key: string, delta: string): void {
    const block = this.blocks.get(key);
    if (!block || delta === "") return;
    block.rawArguments += delta;
    if (shouldReparse(block)) {
      block.parsedLength = block.rawArguments.length;
      const partial = parsePartial(block.rawArguments);
      if (partial) (this.message.content[block.index] as ToolCall).arguments = partial;
    }
    this.stream.push({ type: "toolcall_delta", contentIndex: block.index, delta, partial: this.message });
  }

  /** Ends the block under `key`, or the current block. */
  end(key?: string): void {
    const block = key === undefined ? this.current : this.blocks.get(key);
    if (!block) return;
    this.close(block);
  }

  setUsage(
    update: Partial<Pick<AssistantMessage["usage"], "input" | "output" | "cacheRead" | "cacheWrite">>,
  ): void {
    Object.assign(this.message.usage, update);
    priceUsage(this.model, this.message.usage);
  }

  setResponseId(id: string | undefined): void {
    if (id) this.message.responseId = id;
  }

  /** Ends every open block and the stream with a normal stop. */
  finish(stopReason: Exclude<StopReason, "error" | "aborted">): AssistantMessage {
    if (this.settled) return this.message;
    this.start();
    for (const block of [...this.blocks.values()]) this.close(block);
    const hasToolCalls = this.message.content.some((part) => part.type === "toolCall");
    // Servers disagree on finish reasons for tool calls; the content is the truth.
    this.message.stopReason = stopReason === "stop" && hasToolCalls ? "toolUse" : stopReason;
    priceUsage(this.model, this.message.usage);
    this.settled = true;
    this.stream.push({ type: "done", reason: this.message.stopReason as "stop", message: this.message });
    return this.message;
  }

  /** Ends the stream with a failure, keeping whatever content arrived. */
  fail(failure: Failure): AssistantMessage {
    if (this.settled) return this.message;
    this.start();
    for (const block of this.blocks.values()) this.finalizeArguments(block);
    this.blocks.clear();
    this.current = undefined;
    const aborted = failure.kind === "aborted";
    this.message.stopReason = aborted ? "aborted" : "error";
    this.message.errorMessage = failure.message;
    this.message.errorKind = failure.kind;
    priceUsage(this.model, this.message.usage);
    this.settled = true;
    this.stream.push({
      type: "error",
      reason: aborted ? "aborted" : "error",
      error: this.message,
      ...(failure.retryAfterMs !== undefined && { retryAfterMs: failure.retryAfterMs }),
      ...(failure.status !== undefined && { status: failure.status }),
    });
    return this.message;
  }

  private open(kind: OpenBlock["kind"], key: string): OpenBlock {
    this.start();
    if (this.current && this.current.kind !== "toolCall") this.close(this.current);
    const index = this.message.content.length;
    if (kind === "text") this.message.content.push({ type: "text", text: "" });
    else if (kind === "thinking") this.message.content.push({ type: "thinking", thinking: "" });
    else this.message.content.push({ type: "toolCall", id: "", name: "", arguments: {} });
    const block: OpenBlock = { index, kind, rawArguments: "", parsedLength: 0 };
    this.blocks.set(key, block);
    this.current = block;
    this.stream.push({
      type: `${kind === "toolCall" ? "toolcall" : kind}_start`,
      contentIndex: index,
      partial: this.message,
    });
    return block;
  }

  private endCurrent(): void {
    if (this.current) this.close(this.current);
  }

  private close(block: OpenBlock): void {
    for (const [key, candidate] of this.blocks) if (candidate === block) this.blocks.delete(key);
    if (this.current === block) this.current = undefined;
    const part = this.message.content[block.index]!;
    if (part.type === "text") {
      this.stream.push({
        type: "text_end",
        contentIndex: block.index,
        content: part.text,
        partial: this.message,
      });
    } else if (part.type === "thinking") {
      this.stream.push({
        type: "thinking_end",
        contentIndex: block.index,
        content: part.thinking,
        partial: this.message,
      });
    } else {
      this.finalizeArguments(block);
      this.stream.push({
        type: "toolcall_end",
        contentIndex: block.index,
        toolCall: part,
        partial: this.message,
      });
    }
  }

  private finalizeArguments(block: OpenBlock): void {
    const part = this.message.content[block.index];
    if (part?.type !== "toolCall") return;
    const raw = block.rawArguments.trim();
    if (raw === "") {
      part.arguments = {};
      return;
    }
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isRecord(parsed)) {
        part.arguments = parsed;
        delete part.parseError;
      } else {
        part.parseError = `tool arguments must be a JSON object, got ${Array.isArray(parsed) ? "an array" : typeof parsed}`;
      }
    } catch (error) {
      part.parseError = `tool arguments are not valid JSON (${(error as Error).message}): ${truncate(raw, 200)}`;
    }
  }
}

function shouldReparse(block: OpenBlock): boolean {
  const grown = block.rawArguments.length - block.parsedLength;
  const gap = Math.min(block.parsedLength * REPARSE_GROWTH_FRACTION, REPARSE_MAX_GAP);
  return grown >= gap;
}

function parsePartial(raw: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = parsePartialJson(raw, Allow.ALL);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
