// A cluster node as its own process: `worker` or `front` (a serve node: `@tern/server`'s serve()
// over the queued run host, HTTP only), over the session store the test names
// (TERN_CLUSTER_TEST_STORE: "pg", the PostgreSQL store on the test's database, with the cluster's
// lease; otherwise a file store in a shared directory) and the test's PostgreSQL. The worker's `note` tool appends its call id to
// executions.log, so a test can count executions per call; with "ask" every call needs a
// permission answer from a client. Prints "ready <url?>" when listening.
// TERN_CLUSTER_TEST_KILL=<point>:<sessionId> makes a worker SIGKILL itself at that point of the
// final turn of that session's run (the PostgreSQL store then commits each line on its own, so
// "after line X committed" is an exact state): "answer" (the answer's message line), one of its
// events ("message_start", "message_end", "turn_end", "agent_end"), or "mirrored" (every event in
// the events table, the run not yet marked done). Only this test child reads the variable.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { AnyAgentTool } from "@tern/agent";
import { type Message, UNKNOWN_MODEL_DEFAULTS } from "@tern/ai";
import { modelCatalog, serve } from "@tern/server";
import { FileSessionStore, type SessionStore } from "@tern/session";
import { type CommittedLine, PgSessionStore } from "@tern/store-pg";
import { startQueuedHost, startWorker, surviveDatabaseRestarts } from "../../src/index.js";

const [role, url, home, modelUrl, leaseMs, ask] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string | undefined,
];
const [killPoint, killSession] = (process.env.TERN_CLUSTER_TEST_KILL ?? "").split(":");
const die = () => process.kill(process.pid, "SIGKILL");
/** Per session: whether the final answer's line is committed (the events after it are the answer's). */
const answered = new Set<string>();
const onCommitted = (sessionId: string, lines: readonly CommittedLine[]) => {
  if (sessionId !== killSession) return;
  for (const { line } of lines) {
    const parsed = JSON.parse(line) as { type: string; message?: Message; event?: { type: string } };
    if (parsed.type === "message" && parsed.message?.role === "assistant") {
      const calls = parsed.message.content.some((part) => part.type === "toolCall");
      if (calls) continue;
      answered.add(sessionId);
      if (killPoint === "answer") die();
    } else if (parsed.type === "event" && answered.has(sessionId) && parsed.event?.type === killPoint) die();
  }
};
// As `tern worker` and `tern serve --store` do: a restart during graphile-worker's unawaited
// job statements is weather, not the end of the process.
surviveDatabaseRestarts((line) => process.stderr.write(`${line}\n`));

const store: SessionStore =
  process.env.TERN_CLUSTER_TEST_STORE === "pg"
    ? await PgSessionStore.connect({
        url,
        leaseMs: Number(leaseMs),
        ...(killPoint ? { maxBatchLines: 1, onCommitted } : {}),
      })
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
    onStep: (step, run) => {
      if (step === killPoint && run.sessionId === killSession) die();
    },
  });
  process.stdout.write("ready\n");
} else {
  const { host } = await startQueuedHost({ connectionString: url, store });
  const served = await serve({ engine: { models: modelCatalog([model]), store, cwd: home, host }, port: 0 });
  process.stdout.write(`ready ${served.http!.url}\n`);
}
