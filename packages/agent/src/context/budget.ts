// The token budget of a model call and the estimate to compare with it. Estimates come from
// @tern/ai's per-message cache, so a long run only pays for messages it has not seen before.
import {
  estimateMessageTokens,
  estimateTextTokens,
  estimateToolTokens,
  type Model,
  type ToolSpec,
} from "@tern/ai";
import { isLlmMessage } from "../messages.js";
import { toolSpecs } from "../tool-schema.js";
import type { AgentMessage, AnyAgentTool } from "../types.js";
import { type BudgetOptions, CONTEXT_DEFAULTS, type ContextGuardOptions, optionsFor } from "./options.js";

export interface ContextBudget {
  contextWindow: number;
  maxOutputTokens: number;
  margin: number;
  /** What the prompt (system prompt, tools and messages) may take. */
  tokens: number;
}

/** Context window minus the reply's reserve minus a margin; `maxTokens` is the call's own limit, if set. */
export function contextBudget(
  model: Model,
  options: ContextGuardOptions | BudgetOptions = {},
  maxTokens?: number,
): ContextBudget {
  const own = "models" in options ? optionsFor(options, model) : options;
  const contextWindow = own.contextWindow ?? model.contextWindow;
  const maxOutputTokens = own.maxOutputTokens ?? maxTokens ?? model.maxOutputTokens;
  const margin =
    own.margin ??
    Math.max(CONTEXT_DEFAULTS.minMargin, Math.ceil(contextWindow * CONTEXT_DEFAULTS.marginFraction));
  if (own.budget !== undefined) return { contextWindow, maxOutputTokens, margin, tokens: own.budget };
  // A model whose output reserve eats most of its window still gets a usable prompt budget.
  const floor = Math.floor(contextWindow * CONTEXT_DEFAULTS.minBudgetFraction);
  const tokens = Math.max(floor, contextWindow - maxOutputTokens - margin);
  return { contextWindow, maxOutputTokens, margin, tokens };
}

/** What a model call's prompt costs besides its messages: the system prompt and the tool specs. */
export interface FixedParts {
  systemPrompt?: string | undefined;
  tools?: readonly AnyAgentTool[] | readonly ToolSpec[] | undefined;
}

const toolCost = new WeakMap<readonly unknown[], number>();

export function fixedTokens(parts: FixedParts): number {
  let tokens = parts.systemPrompt ? estimateTextTokens(parts.systemPrompt) : 0;
  const tools = parts.tools;
  if (tools && tools.length > 0) {
    // toolSpecs keeps one spec list per tool list (re-derived if the list changed in place).
    const specs = "execute" in tools[0]! ? toolSpecs(tools as AnyAgentTool[]) : (tools as ToolSpec[]);
    let cost = toolCost.get(specs);
    if (cost === undefined) {
      cost = estimateToolTokens(specs);
      toolCost.set(specs, cost);
    }
    tokens += cost;
  }
  return tokens;
}

/** Messages the model sees (custom messages are dropped by convertToLlm and cost nothing). */
export function messageTokens(message: AgentMessage): number {
  return isLlmMessage(message) ? estimateMessageTokens(message) : 0;
}

export function messagesTokens(messages: readonly AgentMessage[]): number {
  let tokens = 0;
  for (const message of messages) tokens += messageTokens(message);
  return tokens;
}

/** The estimate of a whole prompt: system prompt, tools and messages. */
export function estimateContext(messages: readonly AgentMessage[], parts: FixedParts = {}): number {
  return fixedTokens(parts) + messagesTokens(messages);
}
