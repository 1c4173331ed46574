// The context guard: token budgets, micro-compaction, compaction with pinned messages, overflow
// recovery. Each concept in its own module; this file only re-exports.
export { type ContextBudget, contextBudget, estimateContext, type FixedParts } from "./budget.js";
export {
  type CompactionMethod,
  type CompactionReason,
  type CompactionRequest,
  type CompactionResult,
  type CompactOptions,
  compact,
  compactContext,
  type Summariser,
} from "./compact.js";
export {
  CONTEXT_GUARD,
  type ContextGuardPolicy,
  contextGuard,
  isContextGuard,
} from "./guard.js";
export { type MicroResult, microCompact } from "./micro.js";
export { type BudgetOptions, CONTEXT_DEFAULTS, type ContextGuardOptions } from "./options.js";
export { SUMMARY_PROMPTS, summaryPrompt } from "./prompts.js";
export {
  COMPACTION_PREFIX,
  type CompactionSummaryMessage,
  isCompactionSummary,
  summaryMessage,
  summaryText,
} from "./summary-message.js";
export {
  CONTEXT_WINDOW_CHECK,
  type ContextWindowCheckOptions,
  type ContextWindowCheckPolicy,
  contextWindowCheck,
  isContextWindowCheck,
  PROMPT_TOO_LARGE,
  promptTooLargeMessage,
} from "./window-check.js";
