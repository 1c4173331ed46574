// The context guard's knobs and their named defaults. Every figure is overridable, globally or per
// model id, so one guard can serve an agent that switches models.
import type { Model, StreamOptions } from "@tern/ai";

/** How much of a model's window a run may fill. */
export interface BudgetOptions {
  /** Default: `model.contextWindow`. */
  contextWindow?: number;
  /** Tokens kept free for the reply. Default: the call's `maxTokens`, else `model.maxOutputTokens`. */
  maxOutputTokens?: number;
  /** Safety margin for estimate error, in tokens. Default: 5% of the window, at least 256. */
  margin?: number;
  /** Sets the budget outright (the three fields above are then ignored). */
  budget?: number;
}

export interface ContextGuardOptions extends BudgetOptions {
  /** Overrides by model id, applied over the fields above. */
  models?: Record<string, BudgetOptions>;
  /** Fraction of the budget at which the guard acts (micro-compaction, then compaction). Default 0.8. */
  threshold?: number;
  /** Tool results kept intact by micro-compaction, counted from the newest. Default 6. */
  keepToolResults?: number;
  /** Tokens of the newest messages kept verbatim by a compaction. Default 20 000, at most 30% of the budget. */
  keepRecentTokens?: number;
  /** The summariser; default the run's model. A cheaper model is a good choice. */
  summaryModel?: Model;
  /** Longest summary asked for (the summariser's maxTokens). Default 2 048. */
  summaryMaxTokens?: number;
  /** Hint for threshold and overflow compactions (see SUMMARY_PROMPTS). Default "work-card". */
  hint?: string;
  /** Hard compaction after an overflow aims at this fraction of the budget. Default 0.5. */
  overflowTarget?: number;
  /** Extra stream options for the summariser call (temperature, apiKey, ...). */
  summaryStreamOptions?: Partial<StreamOptions>;
}

export const CONTEXT_DEFAULTS = {
  marginFraction: 0.05,
  minMargin: 256,
  /** A budget never drops below this share of the window, whatever the output reserve. */
  minBudgetFraction: 0.25,
  threshold: 0.8,
  /** A threshold compaction aims at this share of the budget, so the next one is some turns away. */
  targetFraction: 0.6,
  keepToolResults: 6,
  keepRecentTokens: 20_000,
  keepRecentFraction: 0.3,
  summaryMaxTokens: 2_048,
  overflowTarget: 0.5,
  /** Pinned messages above this share of the budget lose their pins, all but the newest. */
  pinnedFraction: 0.5,
  hint: "work-card",
} as const;

/** The options for `model`: the global ones with that model's overrides on top. */
export function optionsFor(options: ContextGuardOptions, model: Model): ContextGuardOptions {
  const override = options.models?.[model.id];
  return override ? { ...options, ...override } : options;
}
