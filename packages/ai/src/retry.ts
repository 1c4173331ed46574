import { delay } from "./delay.js";
import { isRetryable } from "./errors.js";
import { AssistantMessageEventStream } from "./event-stream.js";
import type { AssistantEvent, AssistantMessage, RetryOptions } from "./types.js";

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
 */
export function withRetry(attempt: Attempt, options: RetryOptions | undefined, signal?: AbortSignal) {
  const policy = retryPolicy(options);
  const out = new AssistantMessageEventStream();
  void (async () => {
    let startSent = false;
    for (let attemptNumber = 0; ; attemptNumber++) {
      let emitted = false;
      let retryAfter: number | undefined;
      let retry = false;
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
          retry = true;
          retryAfter = event.retryAfterMs;
          break;
        }
        emitted = true;
        out.push(event);
      }
      if (!retry) break;
      const waited = await delay(backoffDelay(policy, attemptNumber, retryAfter), signal);
      if (!waited) {
        // Let the next attempt observe the abort and end with its own "aborted" message.
        attemptNumber = policy.maxRetries;
      }
    }
  })();
  return out;
}
