// A cluster node as its own process: `worker` or `front` (a serve node: `@tern/server`'s serve()
// over the queued run host, HTTP only), over the session store the test names
// (TERN_CLUSTER_TEST_STORE: "pg", the PostgreSQL store on the test's database, with the cluster's
// lease; otherwise a file store in a shared directory) and the test's PostgreSQL. The worker's `note` tool appends its call id to
// executions.log, so a test can count executions per call; with "ask" every call needs a
// permission answer from a client. Prints "ready <url?>" when listening.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { AnyAgentTool } from "@tern/agent";
import { UNKNOWN_MODEL_DEFAULTS } from "@tern/ai";
import { modelCatalog, serve } from "@tern/server";
import { FileSessionStore, type SessionStore } from "@tern/session";
import { PgSessionStore } from "@tern/store-pg";
import { startQueuedHost, startWorker } from "../../src/index.js";

const [role, url, home, modelUrl, leaseMs, ask] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string | undefined,
];
const store: SessionStore =
  process.env.TERN_CLUSTER_TEST_STORE === "pg"
    ? await PgSessionStore.connect({ url, leaseMs: Number(leaseMs) })
    : new FileSessionStore({ home, fsync: "never" });

const model = {
  id: "scripted",
  name: "scripted",
  api: "openai-completions",
  provider: "local",
  baseUrl: modelUrl,
  ...UNKNOWN_MODEL_DEFAULTS,
} as const;

if (role === "worker") {
  const note: AnyAgentTool = {
    name: "note",
    description: "Write a note",
    parameters: { type: "object", properties: { n: { type: "number" } } },
    execute: (_args, context) => {
      appendFileSync(join(home, "executions.log"), `${context.toolCallId}\n`);
      return "noted";
    },
  };
  await startWorker({
    connectionString: url,
    store,
    engine: {
      models: modelCatalog([model]),
      configureAgent: () => ({
        tools: [note],
        ...(ask === "ask" ? { permissions: { mode: "ask" as const } } : {}),
      }),
    },
    concurrency: Number(process.env.TERN_CLUSTER_CONCURRENCY ?? 4),
    leaseMs: Number(leaseMs),
    heartbeatMs: Math.max(100, Math.floor(Number(leaseMs) / 4)),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write("ready\n");
} else {
  const { host } = await startQueuedHost({ connectionString: url, store });
  const served = await serve({ engine: { models: modelCatalog([model]), store, cwd: home, host }, port: 0 });
  process.stdout.write(`ready ${served.http!.url}\n`);
}
