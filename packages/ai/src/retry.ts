import { delay } from "./delay.js";
import { isRetryable } from "./errors.js";
import { AssistantMessageEventStream } from "./event-stream.js";
import type { AssistantEvent, AssistantMessage, RetryNotice, RetryOptions, StreamOptions } from "./types.js";

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export function retryPolicy(options: RetryOptions | undefined): RetryPolicy {
  return {
    maxRetries: options?.maxRetries ?? 3,
    baseDelayMs: options?.baseDelayMs ?? 1000,
    maxDelayMs: options?.maxDelayMs ?? 60_000,
  };
}

/** Exponential backoff with full jitter; a server's Retry-After wins when it sent one. */
export function backoffDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs?: number,
  random = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxDelayMs);
  const ceiling = Math.min(policy.baseDelayMs * 2 ** attempt, policy.maxDelayMs);
  return ceiling / 2 + random() * (ceiling / 2);
}

type Attempt = () => AsyncIterable<AssistantEvent> & { result(): Promise<AssistantMessage> };

/**
 * Runs attempts until one succeeds or fails for good. An attempt is retried only while it has
 * emitted nothing but `start`: restarting a stream that produced output would duplicate it.
 * Before each wait `onRetry` hears why and for how long, so a display can say so.
 */
export function withRetry(attempt: Attempt, options: Pick<StreamOptions, "retry" | "signal" | "onRetry">) {
  const { signal, onRetry } = options;
  const policy = retryPolicy(options.retry);
  const out = new AssistantMessageEventStream();
  void (async () => {
    let startSent = false;
    for (let attemptNumber = 0; ; attemptNumber++) {
      let emitted = false;
      let failure: Extract<AssistantEvent, { type: "error" }> | undefined;
      for await (const event of attempt()) {
        if (event.type === "start") {
          if (!startSent) out.push(event);
          startSent = true;
          continue;
        }
        const failedEarly = event.type === "error" && !emitted && event.reason === "error";
        if (
          failedEarly &&
          attemptNumber < policy.maxRetries &&
          isRetryable(event.error.errorKind ?? "unknown")
        ) {
          failure = event;
          break;
        }
        emitted = true;
        out.push(event);
      }
      if (!failure) break;
      const delayMs = backoffDelay(policy, attemptNumber, failure.retryAfterMs);
      if (onRetry) await tell(onRetry, retryNotice(failure, attemptNumber + 2, policy, delayMs));
      const waited = await delay(delayMs, signal);
      if (!waited) {
        // Let the next attempt observe the abort and end with its own "aborted" message.
        attemptNumber = policy.maxRetries;
      }
    }
  })();
  return out;
}

function retryNotice(
  failure: Extract<AssistantEvent, { type: "error" }>,
  attempt: number,
  policy: RetryPolicy,
  delayMs: number,
): RetryNotice {
  const notice: RetryNotice = {
    attempt,
    maxAttempts: policy.maxRetries + 1,
    delayMs,
    errorKind: failure.error.errorKind ?? "unknown",
    errorMessage: failure.error.errorMessage ?? "the request failed",
  };
  if (failure.status !== undefined) notice.status = failure.status;
  return notice;
}

/** A display's listener must not decide whether the call goes on. */
async function tell(onRetry: NonNullable<StreamOptions["onRetry"]>, notice: RetryNotice): Promise<void> {
  try {
    await onRetry(notice);
  } catch {
    // ignored on purpose: see above
  }
}
