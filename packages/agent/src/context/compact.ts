// One compaction: micro-compaction first (free), then, if still needed, a summary of the older part
// by a model call, with deterministic truncation when the summariser gives nothing. Pure apart from
// the summariser call and the events it is given to emit; the caller installs the result.
import {
  type AssistantMessage,
  type Context,
  estimateTextTokens,
  type Model,
  type StreamFunction,
  type StreamOptions,
  stream,
  type ToolSpec,
} from "@tern/ai";
import { assistantText } from "../messages.js";
import { callModel } from "../model-call.js";
import type { AgentEvent, AgentMessage, AnyAgentTool } from "../types.js";
import { type ContextBudget, contextBudget, fixedTokens, messagesTokens } from "./budget.js";
import { microCompact } from "./micro.js";
import { CONTEXT_DEFAULTS, type ContextGuardOptions, optionsFor } from "./options.js";
import { planCompaction } from "./plan.js";
import { summaryInput, summaryPrompt } from "./prompts.js";
import { type CompactionSummaryMessage, summaryMessage, summaryText } from "./summary-message.js";
import { clipToFit, fallbackSummary } from "./truncate.js";

export type CompactionReason = "threshold" | "overflow" | "manual";

/** Runs the summariser; must show as a model call with purpose "compaction" and never throw. */
export type Summariser = (
  context: Context,
  model: Model,
  options: Partial<StreamOptions>,
) => Promise<AssistantMessage>;

export interface CompactionRequest {
  messages: AgentMessage[];
  /** The run's model: its budget, and the summariser unless `options.summaryModel` is set. */
  model: Model;
  systemPrompt?: string | undefined;
  tools?: readonly AnyAgentTool[] | readonly ToolSpec[] | undefined;
  reason: CompactionReason;
  /** Picks the summary prompt (default `options.hint`, else "work-card"). */
  hint?: string | undefined;
  options?: ContextGuardOptions;
  /** The run's maxTokens, reserved for the reply when the options do not say otherwise. */
  maxTokens?: number | undefined;
  summarise: Summariser;
  /** Receives compaction_start/end. */
  emit?: ((event: AgentEvent) => Promise<void> | void) | undefined;
  now?: () => number;
}

export type CompactionMethod = "none" | "micro" | "summary" | "truncation";

/**
 * What a compaction did. The new context is `pinned`, then `summaryMessage`, then the input from
 * `firstKeptIndex` on (old tool results there may be stubs or clipped copies). A session stores it
 * as a compaction entry: summary, first kept entry, pinned entries, tokens before and after.
 */
export interface CompactionResult {
  reason: CompactionReason;
  method: CompactionMethod;
  /** The new context; the input array itself when nothing changed. */
  messages: AgentMessage[];
  /** The summary text (the work card), when a summary was made or carried over. */
  summary?: string;
  /** The message that holds it in `messages`. */
  summaryMessage?: CompactionSummaryMessage;
  /** Index in the input of the first message of the verbatim tail (input length: none kept). */
  firstKeptIndex: number;
  /** The input message at `firstKeptIndex`. */
  firstKept?: AgentMessage;
  /** Pinned input messages from before the cut, kept verbatim, in order. */
  pinned: AgentMessage[];
  /** Input messages summarised away (not counting previous summaries). */
  summarised: number;
  /** Units whose pins were dropped by the half-budget rule. */
  unpinned: number;
  /** Tool results replaced by stubs. */
  stubbed: number;
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  /** Input messages still in the context (pinned ones and the tail). */
  messagesKept: number;
  budget: ContextBudget;
  /** Why the summariser's answer was not used, when it was not. */
  errorMessage?: string;
}

export async function compactContext(request: CompactionRequest): Promise<CompactionResult> {
  const options = optionsFor(request.options ?? {}, request.model);
  const { messages, reason } = request;
  const budget = contextBudget(request.model, options, request.maxTokens);
  const fixed = fixedTokens({ systemPrompt: request.systemPrompt, tools: request.tools });
  const tokensBefore = fixed + messagesTokens(messages);
  const trigger = budget.tokens * (options.threshold ?? CONTEXT_DEFAULTS.threshold);
  if (reason === "threshold" && tokensBefore <= trigger) return unchanged(request, budget, tokensBefore);
  await request.emit?.({ type: "compaction_start", reason, tokensBefore, messagesBefore: messages.length });
  const result = await run(request, options, budget, fixed, tokensBefore);
  const end: AgentEvent = {
    type: "compaction_end",
    reason,
    tokensBefore,
    tokensAfter: result.tokensAfter,
    messagesBefore: messages.length,
    messagesKept: result.messagesKept,
  };
  if (result.errorMessage !== undefined) end.errorMessage = result.errorMessage;
  await request.emit?.(end);
  return result;
}

async function run(
  request: CompactionRequest,
  options: ContextGuardOptions,
  budget: ContextBudget,
  fixed: number,
  tokensBefore: number,
): Promise<CompactionResult> {
  const { messages, reason } = request;
  const threshold = options.threshold ?? CONTEXT_DEFAULTS.threshold;
  const trigger = budget.tokens * threshold;
  // Where the context should land: some room below the trigger, or about half the budget after an
  // overflow (less, if the estimate was already below that: the provider counts more than we do).
  const target =
    reason === "overflow"
      ? Math.min(
          budget.tokens * (options.overflowTarget ?? CONTEXT_DEFAULTS.overflowTarget),
          tokensBefore / 2,
        )
      : budget.tokens * Math.min(threshold, CONTEXT_DEFAULTS.targetFraction);
  const base = unchanged(request, budget, tokensBefore);
  const keepResults = options.keepToolResults ?? CONTEXT_DEFAULTS.keepToolResults;
  const micro = microCompact(messages, reason === "overflow" ? Math.min(keepResults, 2) : keepResults);
  const afterMicro = fixed + messagesTokens(micro.messages);
  if (micro.stubbed > 0) {
    base.method = "micro";
    base.messages = micro.messages;
    base.stubbed = micro.stubbed;
    base.tokensAfter = afterMicro;
  }
  if (reason === "threshold" && afterMicro <= trigger) return base;

  const summaryMax = options.summaryMaxTokens ?? CONTEXT_DEFAULTS.summaryMaxTokens;
  const pinnedLimit = budget.tokens * CONTEXT_DEFAULTS.pinnedFraction;
  const recentCap = Math.min(
    options.keepRecentTokens ?? CONTEXT_DEFAULTS.keepRecentTokens,
    budget.tokens * CONTEXT_DEFAULTS.keepRecentFraction,
  );
  // The tail's size depends on what the pins take, known once planned: plan, then size the tail.
  const probe = planCompaction(micro.messages, { recentTokens: recentCap, pinnedLimit });
  const room = Math.max(0, target - fixed - probe.pinnedTokens - summaryMax);
  let plan = planCompaction(micro.messages, { recentTokens: Math.min(recentCap, room), pinnedLimit });
  // Nothing new before the tail, yet over the trigger (a threshold compaction that got here), past
  // an overflow, or asked for: keep only the newest unit (and the pins). Nothing to do only when
  // even then there is nothing older.
  if (plan.older.length === 0) plan = planCompaction(micro.messages, { recentTokens: 0, pinnedLimit });
  if (plan.older.length === 0) return fitted(base, budget, fixed, target, reason);

  // The summariser reads the originals (not their stubs): micro-compaction keeps indices.
  const older = plan.older.map((i) => messages[i]!);
  const previous = plan.previous.length > 0 ? plan.previous.map(summaryText).join("\n\n") : undefined;
  const made = await summarise(request, options, older, previous, summaryMax);
  const summary = made.text ?? fallbackSummary(older, previous, made.why!, summaryMax);
  const summaryMsg = summaryMessage(summary, (request.now ?? Date.now)());

  const tail = micro.messages.slice(plan.cut);
  const next = [...plan.pinned, summaryMsg, ...tail];
  let stubbed = 0;
  for (let i = plan.cut; i < messages.length; i++) if (micro.messages[i] !== messages[i]) stubbed++;
  const result: CompactionResult = {
    ...base,
    method: made.text === undefined ? "truncation" : "summary",
    messages: next,
    summary,
    summaryMessage: summaryMsg,
    firstKeptIndex: plan.cut,
    firstKept: messages[plan.cut],
    pinned: plan.pinned,
    summarised: older.length,
    unpinned: plan.unpinned,
    stubbed,
    messagesKept: plan.pinned.length + tail.length,
    tokensAfter: fixed + messagesTokens(next),
  };
  if (result.firstKept === undefined) delete result.firstKept;
  if (made.text === undefined) result.errorMessage = `${made.why} Used deterministic truncation instead.`;
  return fitted(result, budget, fixed, target, reason);
}

function unchanged(request: CompactionRequest, budget: ContextBudget, tokens: number): CompactionResult {
  const { messages } = request;
  const result: CompactionResult = {
    reason: request.reason,
    method: "none",
    messages,
    firstKeptIndex: 0,
    pinned: [],
    summarised: 0,
    unpinned: 0,
    stubbed: 0,
    tokensBefore: tokens,
    tokensAfter: tokens,
    messagesBefore: messages.length,
    messagesKept: messages.length,
    budget,
  };
  if (messages.length > 0) result.firstKept = messages[0]!;
  return result;
}

/** Last resort: clip oversized tool results the cut could not drop (they are in the newest unit). */
function fitted(
  result: CompactionResult,
  budget: ContextBudget,
  fixed: number,
  target: number,
  reason: CompactionReason,
): CompactionResult {
  const limit = (reason === "overflow" ? target : budget.tokens) - fixed;
  const clipped = clipToFit(result.messages, Math.max(0, limit));
  if (clipped === result.messages) return result;
  let changed = 0;
  for (let i = 0; i < clipped.length; i++) if (clipped[i] !== result.messages[i]) changed++;
  return {
    ...result,
    method: result.method === "none" ? "micro" : result.method,
    messages: clipped,
    stubbed: result.stubbed + changed,
    tokensAfter: fixed + messagesTokens(clipped),
  };
}

async function summarise(
  request: CompactionRequest,
  options: ContextGuardOptions,
  older: AgentMessage[],
  previous: string | undefined,
  maxTokens: number,
): Promise<{ text?: string; why?: string }> {
  const model = options.summaryModel ?? request.model;
  const system = summaryPrompt(request.hint ?? options.hint);
  // The summariser's own prompt must fit its window, with room for the card it writes.
  const room = contextBudget(model, {}, maxTokens).tokens - estimateTextTokens(system) - 64;
  const context: Context = {
    systemPrompt: system,
    messages: [
      { role: "user", content: summaryInput(older, previous, room), timestamp: (request.now ?? Date.now)() },
    ],
  };
  let reply: AssistantMessage;
  try {
    reply = await request.summarise(context, model, { ...options.summaryStreamOptions, maxTokens });
  } catch (error) {
    return { why: `The summariser failed: ${error instanceof Error ? error.message : String(error)}.` };
  }
  if (reply.stopReason === "error" || reply.stopReason === "aborted")
    return { why: `The summariser failed: ${reply.errorMessage ?? reply.stopReason}.` };
  const text = assistantText(reply).trim();
  if (text === "") return { why: "The summariser returned nothing." };
  return { text };
}

export interface CompactOptions extends ContextGuardOptions {
  systemPrompt?: string;
  tools?: readonly AnyAgentTool[] | readonly ToolSpec[];
  /** Default "manual". */
  reason?: CompactionReason;
  /** Receives compaction_start/end and the summariser's model_call_start/end. */
  emit?: (event: AgentEvent) => Promise<void> | void;
  /** The model seam for the summariser. Default `stream` from @tern/ai. */
  streamFn?: StreamFunction;
  /** For the summariser call (apiKey, ...); `maxTokens` is the agent's, reserved in the budget. */
  streamOptions?: Omit<StreamOptions, "signal">;
  signal?: AbortSignal;
  now?: () => number;
  ids?: () => string;
}

/**
 * Compacts `messages` now (on demand: `agent.compact(hint)`). The summariser call shows as
 * model_call_start/end with purpose "compaction" through `options.emit`.
 */
export function compact(
  messages: AgentMessage[],
  model: Model,
  hint?: string,
  options: CompactOptions = {},
): Promise<CompactionResult> {
  const now = options.now ?? Date.now;
  const emit = async (event: AgentEvent) => {
    await options.emit?.(event);
  };
  const env = {
    streamFn: options.streamFn ?? stream,
    emit,
    now,
    ids: options.ids ?? (() => crypto.randomUUID()),
  };
  const summarise: Summariser = (context, summaryModel, callOptions) =>
    callModel({
      model: summaryModel,
      context,
      streamOptions: {
        ...options.streamOptions,
        ...callOptions,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      env,
      purpose: "compaction",
      messageEvents: false,
    });
  return compactContext({
    messages,
    model,
    systemPrompt: options.systemPrompt,
    tools: options.tools,
    reason: options.reason ?? "manual",
    hint,
    options,
    maxTokens: options.streamOptions?.maxTokens,
    summarise,
    emit,
    now,
  });
}
