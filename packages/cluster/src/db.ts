// The cluster's PostgreSQL connections: a pool that survives the server going away (a client's
// error, idle or checked out, is logged, not thrown, so a database restart pauses work instead of crashing the
// node), `retrying`, which keeps trying a statement until the database is back, and a patient pool
// for graphile-worker, whose own statements (completing or failing a job) are not awaited by it and
// would otherwise reject unhandled while the database is away. What counts as "the database is
// away" is @tern/store-pg's one classifier.
import { isDatabaseUnavailable, surviveLostConnections } from "@tern/store-pg";
import pg from "pg";

/** Between attempts while the database is unreachable. */
export const RETRY_MS = 500;
/** A connect attempt that hangs (a dropped network) counts as failed after this long. */
export const CONNECT_TIMEOUT_MS = 5_000;

export function createPool(connectionString: string, log: (line: string) => void = () => {}): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 5, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  surviveLostConnections(pool, (line) => log(`database ${line}`));
  return pool;
}

/**
 * A pool whose `connect()` waits while the database is away (until `stopped()`), for code that
 * cannot be told to retry: graphile-worker's runner.
 */
export function createPatientPool(
  connectionString: string,
  log: (line: string) => void,
  stopped: () => boolean,
): pg.Pool {
  const pool = createPool(connectionString, log);
  const connect = pool.connect.bind(pool) as (callback?: unknown) => Promise<pg.PoolClient> | undefined;
  const patient = (callback?: unknown) =>
    typeof callback === "function" ? connect(callback) : retrying(() => connect()!, stopped);
  Object.defineProperty(pool, "connect", { value: patient });
  return pool;
}

/**
 * Runs `work` until it succeeds or `stopped()` says to give up (then the last error is thrown);
 * `waiting` hears each failure that is the database being away, before the pause.
 */
export async function retrying<T>(
  work: () => Promise<T>,
  stopped: () => boolean = () => false,
  waiting: (error: unknown) => void = () => {},
): Promise<T> {
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (stopped() || !isDatabaseUnavailable(error)) throw error;
      waiting(error);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}
