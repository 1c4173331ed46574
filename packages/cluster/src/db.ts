// The cluster's PostgreSQL connections: a pool that survives the server going away (an idle
// client's error is logged, not thrown, so a database restart pauses work instead of crashing the
// node), and `retrying`, which keeps trying a statement until the database is back. What counts as
// "the database is away" is @tern/store-pg's one classifier.
import { isDatabaseUnavailable, messageOf } from "@tern/store-pg";
import pg from "pg";

/** Between attempts while the database is unreachable. */
export const RETRY_MS = 500;

export function createPool(connectionString: string, log: (line: string) => void = () => {}): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 5 });
  pool.on("error", (error) => log(`database connection lost: ${messageOf(error)}`));
  return pool;
}

/** Runs `work` until it succeeds or `stopped()` says to give up (then the last error is thrown). */
export async function retrying<T>(work: () => Promise<T>, stopped: () => boolean = () => false): Promise<T> {
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (stopped() || !isDatabaseUnavailable(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}
