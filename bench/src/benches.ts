import { agentLoopBench, idleAgentsBench } from "./agent-loop.js";
import { clisBench } from "./clis/bench.js";
import { clusterBench } from "./cluster.js";
import { contextBench } from "./context.js";
import { extractJsonBench } from "./extract-json.js";
import { mcpInitializeBench } from "./mcp-initialize.js";
import { providerParseBench } from "./provider-parse.js";
import { sandboxBench } from "./sandbox.js";
import { serverBench } from "./server.js";
import { sessionBench } from "./session.js";
import { sessionListBench } from "./session-list.js";
import { startupBench } from "./startup.js";
import { storePgBench } from "./store-pg.js";
import { telemetryBench } from "./telemetry.js";
import { webCompareBench } from "./web-compare.js";
import { webPaintBench } from "./web-paint.js";
import { concurrencyBench } from "./workloads/concurrency.js";
import { latencyBench } from "./workloads/latency.js";
import { loopBench } from "./workloads/loop.js";
import { manyToolsBench, manyToolsImperfectBench } from "./workloads/many-tools.js";
import { scalingBench } from "./workloads/scaling.js";
import { versionsBench } from "./workloads/versions.js";

export type Rows = Record<string, string | number>[];

/** Every benchmark, by id; each runs in a fresh child process so memory figures are its own. */
export const BENCHES: Record<string, { title: string; run: () => Promise<Rows> }> = {
  "provider-parse": {
    title: "provider parse throughput (loopback HTTP, real provider code)",
    run: providerParseBench,
  },
  "agent-loop": { title: "agent loop overhead (faux provider, zero delay)", run: agentLoopBench },
  "idle-agents": { title: "memory of idle Agents", run: idleAgentsBench },
  session: { title: "session appends and load (10,000 and 100,000 entries)", run: sessionBench },
  "session-list": { title: "session listing (1,000 sessions of ~164 KB)", run: sessionListBench },
  "store-pg": { title: "session store: per-event append cost, PostgreSQL vs file", run: storePgBench },
  startup: { title: "tern start-up: --version and --help against bare node", run: startupBench },
  "mcp-initialize": {
    title: "tern mcp serve: spawn -> initialize result (official MCP client), against node -e ''",
    run: mcpInitializeBench,
  },
  "extract-json": { title: "extractJson on adversarial brackets (linear work)", run: extractJsonBench },
  context: { title: "context guard: estimates and compaction overhead", run: contextBench },
  server: { title: "server: memory per session, SSE frames/s", run: serverBench },
  "web-paint": { title: "web page: first paint of a 500-turn session (chromium)", run: webPaintBench },
  "web-compare": {
    title: "web pages: tern vs OpenCode's web UI and pi's web-ui (chromium, one streamed answer)",
    run: webCompareBench,
  },
  cluster: {
    title: "cluster: runs/s with 1, 2, 4 workers (200 ms per model turn); takeover after a kill",
    run: clusterBench,
  },
  sandbox: { title: "bash sandbox: per-call overhead of bubblewrap on `bash -c true`", run: sandboxBench },
  telemetry: {
    title: "OpenTelemetry: cost per run (11 turns, 10 tool calls) off / API only / SDK",
    run: telemetryBench,
  },
  // Side by side with peer runtimes against one scripted loopback server (bench/README.md).
  "peers-versions": { title: "peers: versions measured", run: versionsBench },
  "peers-loop": { title: "peers 1: loop overhead (20 tool turns + answer per run)", run: loopBench },
  "peers-latency": { title: "peers 2: streaming latency (2,000 chunks)", run: latencyBench },
  "peers-tools": { title: "peers 3: many tools (40 tools, 6-turn task)", run: manyToolsBench },
  "peers-tools-imperfect": {
    title: "peers 3b: many tools, imperfect selector reply (a needed tool missing)",
    run: manyToolsImperfectBench,
  },
  "peers-concurrency": {
    title: "peers 4: concurrency (1,000 sessions, paced server)",
    run: concurrencyBench,
  },
  clis: {
    title: "CLIs: tern vs pi, codex, claude, opencode, gemini (real npm packages, 5 reads + 2 KB answer)",
    run: () => clisBench(),
  },
  "peers-scaling": {
    title: "peers 5: scaling (transcript growth, 1-char-chunk arguments, 2 MiB tool result)",
    run: scalingBench,
  },
};
