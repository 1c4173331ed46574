// The cluster's PostgreSQL connections: a pool that survives the server going away (an idle
// client's error is logged, not thrown, so a database restart pauses work instead of crashing the
// node), and `retrying`, which keeps trying a statement until the database is back.
import pg from "pg";

/** Between attempts while the database is unreachable. */
export const RETRY_MS = 500;

export function createPool(connectionString: string, log: (line: string) => void = () => {}): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 5 });
  pool.on("error", (error) => log(`database connection lost: ${error.message}`));
  return pool;
}

/** Runs `work` until it succeeds or `stopped()` says to give up (then the last error is thrown). */
export async function retrying<T>(work: () => Promise<T>, stopped: () => boolean = () => false): Promise<T> {
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (stopped() || !isConnectionError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}

/** Errors that mean "the database is not there right now", not "this statement is wrong". */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (code.startsWith("08") || code === "57P01" || code === "57P03"))
    return true;
  const message = error instanceof Error ? error.message : String(error);
  return /ECONNREFUSED|ECONNRESET|Connection terminated|terminating connection|not queryable|EPIPE/i.test(
    message,
  );
}
