// The queued run host: `@tern/server`'s engine, routes and protocols in front of the cluster. A
// node with it is a `tern serve` whose sessions run on workers (QueuedSession): the same HTTP API
// and SSE frames, the same web page, JSON-RPC for the Copilot SDK. What a worker cannot reach is
// refused plainly: client tools and client hooks live in the connected client, and the run that
// would call them executes on another machine.
import { EngineError, type RunHost } from "@tern/server";
import type { SessionStore } from "@tern/session";
import type { Pool } from "pg";
import { createPool } from "./db.js";
import { EventFeed } from "./event-feed.js";
import { getRun } from "./queue.js";
import { QueuedSession } from "./queued-session.js";
import { type GraphileErrorListener, migrate } from "./schema.js";

export interface QueuedHostOptions {
  connectionString: string;
  /** The cluster's session store (the nodes' engine uses the same one). */
  store: SessionStore;
  log?: (line: string) => void;
  /** Told graphile-worker's error-level lines from the migrations, dropped without it. */
  onGraphileError?: GraphileErrorListener;
}

export interface QueuedHost {
  readonly host: RunHost;
  /** Stops the feed and disconnects (close the engine's sessions first). */
  close(): Promise<void>;
}

export async function startQueuedHost(options: QueuedHostOptions): Promise<QueuedHost> {
  const log = options.log ?? (() => {});
  const pool = createPool(options.connectionString, log);
  let feed: EventFeed | undefined;
  try {
    await migrate(pool, options.connectionString, options.onGraphileError);
    feed = new EventFeed(pool, options.connectionString);
    await feed.start();
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  const ctx = { pool, feed, store: options.store, checkClient, log };
  const host: RunHost = {
    remote: true,
    load: async (store, id) => {
      const session = await store.load(id);
      return { session, context: session.buildContext(), lastEventSeq: session.lastEventSeq };
    },
    open: (init) => QueuedSession.open(ctx, init),
    checkClient,
    health: () => databaseHealth(pool),
    describeRun: async (runId) => {
      const run = await getRun(pool, runId);
      return (
        run && { run_id: run.runId, session_id: run.sessionId, state: run.state, takeovers: run.takeovers }
      );
    },
  };
  return {
    host,
    close: async () => {
      await feed?.close();
      await pool.end();
    },
  };
}

function checkClient(client: Parameters<RunHost["checkClient"]>[0]): void {
  const refused = [
    ...((client.tools?.length ?? 0) > 0 ? ["client tools"] : []),
    ...(client.invokeHook ? ["client hooks"] : []),
  ];
  if (refused.length > 0)
    throw new EngineError(
      "invalid",
      `${refused.join(" and ")} are not offered by a cluster node: its runs execute on workers that cannot reach this client`,
    );
}

async function databaseHealth(pool: Pool): Promise<{ ok: boolean; database: string }> {
  const reachable = await pool.query("select 1").then(
    () => true,
    () => false,
  );
  return { ok: reachable, database: reachable ? "reachable" : "unreachable" };
}
