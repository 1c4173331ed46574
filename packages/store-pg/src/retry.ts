// Runs a database call again while the connection is what failed: the run pauses (the caller's
// flush waits) instead of failing, with exponential backoff up to a ceiling, until `retryForMs`
// has passed. Statement errors are not retried: they would fail the same way again.
import { isDatabaseUnavailable, messageOf, PgStoreError } from "./errors.js";

export const FIRST_BACKOFF_MS = 100;
export const MAX_BACKOFF_MS = 5_000;

export interface RetryOptions {
  /** Give up after this long without success. */
  retryForMs: number;
  /** Told about each retry (already redacted). */
  log?: (message: string) => void;
  /** What is being retried, for the log. */
  what: string;
}

export async function withRetry<T>(call: () => Promise<T>, options: RetryOptions): Promise<T> {
  const started = Date.now();
  let backoff = FIRST_BACKOFF_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      if (Date.now() - started >= options.retryForMs)
        throw new PgStoreError(
          "unreachable",
          `${options.what}: the database has been unreachable for ${Math.round((Date.now() - started) / 1000)} s: ${messageOf(error)}`,
        );
      options.log?.(
        `${options.what}: database connection lost (${messageOf(error)}); retry ${attempt} in ${backoff} ms`,
      );
      await new Promise((resolve) => setTimeout(resolve, backoff));
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }
}
