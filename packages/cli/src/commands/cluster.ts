// `tern worker` and `tern serve --store postgres://…`: the agent of `tern serve` (same flags, same
// config.json) as a node of a cluster. A worker takes runs off the database; a serve node answers
// HTTP, enqueues runs, streams any session's events from the database, and (unless --no-worker)
// also works. Sessions live in the PostgreSQL session store on the same database (its lease is
// the run's lease, so a dead worker's sessions free up when its runs do). A database unreachable
// at start is exit 2.
import { type ClusterFront, type ClusterWorker, startFront, startWorker } from "@tern/cluster";
import { isDatabaseUnavailable, redactPasswords, redactUrl } from "@tern/store-pg";
import { parseCommandArgs } from "../cli/args.js";
import { type ExitCode, UsageError } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { CLUSTER_OPTIONS, type ClusterSettings, resolveClusterSettings } from "../config/cluster-options.js";
import { chooseModel, createRegistry, ensureConfiguredKey } from "../config/model.js";
import { resolveServeSettings, SERVE_OPTIONS, type ServeSettings } from "../config/serve-settings.js";
import { openStore } from "../config/store.js";
import { helpFor } from "../help.js";
import { servedEngineOptions } from "../runtime/served.js";
import { commandContext, wantsHelp } from "./shared.js";

export async function workerCommand(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parseCommandArgs("worker", argv, { ...SERVE_OPTIONS, ...CLUSTER_OPTIONS }, 0);
  if (wantsHelp(values, io, helpFor("worker"))) return 0;
  const cluster = resolveClusterSettings(values, io);
  if (!cluster) throw new UsageError("tern worker needs --store postgres://… (or TERN_STORE)");
  return runNode("worker", values, io, { ...cluster, worker: true }, resolveServeSettings(values, io));
}

/** `tern serve` when --store names PostgreSQL. */
export async function clusterServe(
  values: Parameters<typeof resolveServeSettings>[0],
  io: Io,
  cluster: ClusterSettings,
  server: ServeSettings,
): Promise<ExitCode> {
  // A cluster node speaks HTTP + SSE only: say so rather than ignore the flags.
  if (server.stdio || server.rpcPort !== undefined)
    throw new UsageError(
      "serve --store postgres://… serves HTTP only (--port); JSON-RPC (--rpc-port, --stdio) is not offered by cluster nodes yet",
    );
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
  const store = await openStore(cluster.url, settings.home, { warn, leaseMs: cluster.leaseMs });
  let worker: ClusterWorker | undefined;
  let front: ClusterFront | undefined;
  try {
    if (cluster.worker)
      worker = await startWorker({
        connectionString: cluster.url,
        store,
        engine: { ...servedEngineOptions(settings, server, { registry, model, env }), secrets },
        concurrency: cluster.concurrency,
        leaseMs: cluster.leaseMs,
        heartbeatMs: Math.max(1, Math.floor(cluster.leaseMs / 3)),
        log,
      });
    if (role === "serve")
      front = await startFront({
        connectionString: cluster.url,
        store,
        cwd: settings.cwd,
        port: server.port ?? 7878,
        allowOrigins: server.allowOrigins,
        ...(server.host !== undefined ? { host: server.host } : {}),
        ...(server.token !== undefined ? { token: server.token } : {}),
        log,
      });
  } catch (error) {
    await worker?.stop().catch(() => {});
    await store.close?.().catch(() => {});
    throw startError(error, cluster.url);
  }
  if (front) io.stdout.write(`http listening on ${front.url}\n`);
  if (worker) io.stdout.write(`worker taking runs from ${redactUrl(cluster.url)}\n`);
  return new Promise<ExitCode>((resolve) => {
    const stop = async () => {
      await front?.close().catch(() => {});
      await worker?.stop().catch(() => {});
      await store.close?.().catch(() => {});
      resolve(0);
    };
    process.once("SIGINT", () => void stop());
    process.once("SIGTERM", () => void stop());
  });
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
