// The context-window check: before a run's first request, the prompt's estimated size (the same
// estimate the context guard budgets with) is compared with the model's context window. A prompt
// that cannot fit is refused with both numbers and nothing is sent: compaction can shrink history,
// never the prompt itself. An unknown window (the host's `windowOf` says undefined) is not checked.
import { estimateTextTokens, type Model } from "@tern/ai";
import type { LoopPolicy } from "../policy.js";

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

export function contextWindowCheck(options: ContextWindowCheckOptions = {}): LoopPolicy {
  const windowOf = options.windowOf ?? ((model: Model) => model.contextWindow);
  return {
    name: CONTEXT_WINDOW_CHECK,
    start() {
      return {
        beforeTurn(run) {
          if (run.turn > 0) return undefined;
          const window = windowOf(run.model);
          if (window === undefined) return undefined;
          const tokens = estimateTextTokens(run.prompt);
          if (tokens <= window) return undefined;
          return {
            stopReason: "error",
            errorKind: PROMPT_TOO_LARGE,
            errorMessage: promptTooLargeMessage(tokens, run.model, window),
          };
        },
      };
    },
  };
}
