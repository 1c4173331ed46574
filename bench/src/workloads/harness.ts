// Parent side of a workload: starts the scripted server in its own process, runs each runtime
// in a fresh worker process (bounded in time), and reads the server's count of what each
// runtime sent. Failures come back as data: a worker that throws, exits or times out is a
// `WorkerOutcome` with `ok: false`.

import { type ChildProcess, fork } from "node:child_process";
import type { LaneReport } from "../peers/lane.js";
import type { RuntimeId } from "../peers/runtimes.js";
import type { WorkloadId } from "../peers/script.js";

export interface WorkerArgs {
  workload: WorkloadId;
  runtime: RuntimeId;
  phase: string;
  /** Interleaved round number: each round's runs have their own lane, so their own counts. */
  round: number;
  port: number;
}

export type Metrics = Record<string, number | string>;

export type WorkerOutcome =
  | { ok: true; metrics: Metrics; report: LaneReport }
  | { ok: false; status: "unable" | "failed" | "timeout"; error: string; report?: LaneReport };

export const laneName = (args: Omit<WorkerArgs, "port">) =>
  `${args.workload}.${args.runtime}.${args.phase}.${args.round}`;

export interface BenchServer {
  port: number;
  report(lane: string): Promise<LaneReport>;
  /** The server process's CPU time so far (user + system, ms). */
  cpuMs(): Promise<number>;
  close(): void;
}

export async function startServer(): Promise<BenchServer> {
  const child = fork(new URL("../peers/server.ts", import.meta.url), [], {
    execArgv: ["--import", "tsx"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (m) => resolve((m as { port: number }).port));
    child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return {
    port,
    async report(lane) {
      const response = await fetch(`http://127.0.0.1:${port}/_report/${lane}`);
      return (await response.json()) as LaneReport;
    },
    async cpuMs() {
      const response = await fetch(`http://127.0.0.1:${port}/_cpu`);
      return ((await response.json()) as { cpuMs: number }).cpuMs;
    },
    close: () => {
      child.kill();
    },
  };
}

/**
 * Runs one phase of a workload for one runtime in a fresh process. The server's CPU time during
 * the phase comes back as `serverCpuMs` (it tells whether the server, not the runtime, was the
 * bottleneck of a phase).
 */
export async function runWorker(
  server: BenchServer,
  args: Omit<WorkerArgs, "port">,
  timeoutMs: number,
): Promise<WorkerOutcome> {
  const full: WorkerArgs = { ...args, port: server.port };
  const cpuBefore = await server.cpuMs();
  type Message = { ok: true; metrics: Metrics } | { ok: false; error: string; unable?: boolean };
  const { message, exit } = await new Promise<{ message: Message | undefined; exit: string }>((resolve) => {
    let message: Message | undefined;
    const child: ChildProcess = fork(new URL("./worker.ts", import.meta.url), [JSON.stringify(full)], {
      execArgv: ["--import", "tsx", "--expose-gc", "--no-warnings"],
    });
    const timer = setTimeout(() => {
      message ??= { ok: false, error: `${TIMEOUT} ${timeoutMs / 1000} s` };
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("message", (m) => {
      message ??= m as Message;
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ message, exit: String(code ?? signal) });
    });
  });
  const report = await server.report(laneName(args)).catch(() => undefined);
  const serverCpuMs = (await server.cpuMs()) - cpuBefore;
  if (message?.ok && report) return { ok: true, metrics: { ...message.metrics, serverCpuMs }, report };
  if (message && !message.ok) {
    const status = message.error.startsWith(TIMEOUT) ? "timeout" : message.unable ? "unable" : "failed";
    return { ok: false, status, error: message.error, ...(report && { report }) };
  }
  return { ok: false, status: "failed", error: `worker exited with ${exit} and no result` };
}

const TIMEOUT = "no result after";

/** Progress on stderr, so the tables on stdout stay clean. */
export const progress = (line: string) => process.stderr.write(`  ${line}\n`);
