// The context-window check: before a run's first request, the prompt's estimated size (the same
// estimate the context guard budgets with) is compared with the model's context window. A prompt
// that cannot fit is refused with both numbers and nothing is sent: compaction can shrink history,
// never the prompt itself. An unknown window (the host's `windowOf` says undefined) is not checked.
// Plan mode asks the same policy about its goal before the planner's call (`refuse`).
import { estimateTextTokens, type Model } from "@tern/ai";
import type { LoopPolicy, PolicyStop } from "../policy.js";

export const CONTEXT_WINDOW_CHECK = "context-window-check";

/** `AgentRunResult.errorKind` of a run refused because its prompt exceeds the model's window. */
export const PROMPT_TOO_LARGE = "prompt_too_large";

export interface ContextWindowCheckOptions {
  /** The model's context window in tokens, or undefined when unknown (no check). Default: `model.contextWindow`. */
  windowOf?: (model: Model) => number | undefined;
}

export function promptTooLargeMessage(tokens: number, model: Model, window: number): string {
  return `The prompt is too large for ${model.provider}/${model.id}: about ${tokens} tokens (estimated), the model's context window is ${window} tokens. Nothing was sent.`;
}

export interface ContextWindowCheckPolicy extends LoopPolicy {
  /** The refusal for `prompt` sent to `model`, or undefined when it fits (or the window is unknown). */
  refuse(prompt: string, model: Model): PolicyStop | undefined;
}

export function isContextWindowCheck(policy: LoopPolicy): policy is ContextWindowCheckPolicy {
  return policy.name === CONTEXT_WINDOW_CHECK && "refuse" in policy;
}

export function contextWindowCheck(options: ContextWindowCheckOptions = {}): ContextWindowCheckPolicy {
  const windowOf = options.windowOf ?? ((model: Model) => model.contextWindow);
  const refuse = (prompt: string, model: Model): PolicyStop | undefined => {
    const window = windowOf(model);
    if (window === undefined) return undefined;
    const tokens = estimateTextTokens(prompt);
    if (tokens <= window) return undefined;
    return {
      stopReason: "error",
      errorKind: PROMPT_TOO_LARGE,
      errorMessage: promptTooLargeMessage(tokens, model, window),
    };
  };
  return {
    name: CONTEXT_WINDOW_CHECK,
    refuse,
    start() {
      return {
        beforeTurn: (run) => (run.turn > 0 ? undefined : refuse(run.prompt, run.model)),
      };
    },
  };
}
