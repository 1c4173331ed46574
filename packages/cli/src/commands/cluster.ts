// `tern worker` and `tern serve --store postgres://…`: the agent of `tern serve` (same flags, same
// config.json) as a node of a cluster. A worker takes runs off the database; a serve node is
// `tern serve` itself (HTTP + SSE, the web page, JSON-RPC) over the cluster's queued run host:
// runs are enqueued, every session's events come from the database, and (unless --no-worker) the
// node also works. Sessions live in the PostgreSQL session store on the same database (its lease
// is the run's lease, so a dead worker's sessions free up when its runs do). A database
// unreachable at start is exit 2.
import { randomUUID } from "node:crypto";
import {
  type ClusterWorker,
  type QueuedHost,
  startQueuedHost,
  startWorker,
  surviveDatabaseRestarts,
} from "@tern/cluster";
import type { Served } from "@tern/server";
import { isDatabaseUnavailable, redactPasswords, redactUrl } from "@tern/store-pg";
import { parseCommandArgs } from "../cli/args.js";
import { type ExitCode, UsageError } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { CLUSTER_OPTIONS, type ClusterSettings, resolveClusterSettings } from "../config/cluster-options.js";
import { graphileErrorsFrom } from "../config/library-options.js";
import { chooseModel, createRegistry, ensureConfiguredKey } from "../config/model.js";
import { resolveServeSettings, SERVE_OPTIONS, type ServeSettings } from "../config/serve-settings.js";
import { openStore } from "../config/store.js";
import { helpFor, wantsHelp } from "../help.js";
import { servedEngineOptions } from "../runtime/served.js";
import { webRoot } from "../runtime/web-root.js";
import { announce, listen } from "./serve.js";
import { commandContext } from "./shared.js";

export async function workerCommand(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parseCommandArgs("worker", argv, { ...SERVE_OPTIONS, ...CLUSTER_OPTIONS }, 0);
  if (wantsHelp(values, io, helpFor("worker"))) return 0;
  const cluster = resolveClusterSettings(values, io);
  if (!cluster) throw new UsageError("tern worker needs --store postgres://… (or TERN_STORE)");
  return runNode("worker", values, io, { ...cluster, worker: true }, resolveServeSettings(values, io));
}

/** `tern serve` when --store names PostgreSQL. */
export function clusterServe(
  values: Parameters<typeof resolveServeSettings>[0],
  io: Io,
  cluster: ClusterSettings,
  server: ServeSettings,
): Promise<ExitCode> {
  return runNode("serve", values, io, cluster, server);
}

async function runNode(
  role: "worker" | "serve",
  values: Parameters<typeof resolveServeSettings>[0],
  io: Io,
  cluster: ClusterSettings,
  server: ServeSettings,
): Promise<ExitCode> {
  const env = server.home !== undefined ? { ...io.env, TERN_HOME: server.home } : io.env;
  const { settings, warn } = commandContext(values, { ...io, env });
  const registry = createRegistry(settings, warn);
  const model = chooseModel(registry, settings, env, settings.config.path);
  const secrets = await ensureConfiguredKey(model, settings, env);
  const log = (line: string) => io.stderr.write(`tern ${role}: ${line}\n`);
  const onGraphileError = graphileErrorsFrom(env, (text) => io.stderr.write(text));
  const graphile = onGraphileError ? { onGraphileError } : {};
  surviveDatabaseRestarts(log);
  // Under --stdio, stdout carries JSON-RPC: the node's lines go to stderr.
  const say = (line: string) => (server.stdio ? io.stderr : io.stdout).write(`${line}\n`);
  // The engine picks new sessions' ids (a Copilot client chooses its own): the store asks it.
  let engineIds: (() => string) | undefined;
  const store = await openStore(cluster.url, settings.home, {
    warn,
    leaseMs: cluster.leaseMs,
    file: { newSessionId: () => engineIds?.() ?? randomUUID() },
  });
  const engine = {
    ...(await servedEngineOptions(settings, server, { registry, model, env, warn })),
    secrets,
    ...(io.redactor ? { redactor: io.redactor } : {}),
  };
  let worker: ClusterWorker | undefined;
  let queued: QueuedHost | undefined;
  let served: Served | undefined;
  let finished: (code: ExitCode) => void = () => {};
  const done = new Promise<ExitCode>((resolve) => {
    finished = resolve;
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await served?.close().catch(() => {});
    await queued?.close().catch(() => {});
    await worker?.stop().catch(() => {});
    await store.close?.().catch(() => {});
    finished(0);
  };
  const page = webRoot();
  try {
    if (cluster.worker)
      worker = await startWorker({
        connectionString: cluster.url,
        store,
        engine,
        concurrency: cluster.concurrency,
        leaseMs: cluster.leaseMs,
        heartbeatMs: Math.max(1, Math.floor(cluster.leaseMs / 3)),
        log,
        ...graphile,
      });
    if (role === "serve") {
      queued = await startQueuedHost({ connectionString: cluster.url, store, log, ...graphile });
      served = await listen(server, {
        engine: {
          ...engine,
          store: (newSessionId) => {
            engineIds = newSessionId;
            return store;
          },
          host: queued.host,
        },
        onShutdown: () => void stop(),
        ...(page !== undefined ? { webRoot: page } : {}),
      });
    }
  } catch (error) {
    await queued?.close().catch(() => {});
    await worker?.stop().catch(() => {});
    await store.close?.().catch(() => {});
    throw startError(error, cluster.url);
  }
  if (served) announce(served, server, page, say);
  if (worker) say(`worker taking runs from ${redactUrl(cluster.url)}`);
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
  return done;
}

/** Refusals that are the operator's to fix: a wrong password, a database or host that does not exist. */
const MISCONFIGURED = new Set(["28P01", "28000", "3D000", "ENOTFOUND"]);

/**
 * A database that is not there at start, or refuses this node, is the operator's to fix: exit 2,
 * the URL without its password (in the message, and in the driver's text quoting it).
 */
function startError(error: unknown, url: string): unknown {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  if (isDatabaseUnavailable(error) || (typeof code === "string" && MISCONFIGURED.has(code)))
    return new UsageError(
      `cannot use the database at ${redactUrl(url)}: ${redactPasswords(message.split(url).join(redactUrl(url)))}`,
    );
  if (/requires a token/.test(message)) return new UsageError(message);
  return error;
}
