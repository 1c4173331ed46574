// One run of one CLI on the task: a fresh work directory with the five files, a fresh loopback
// model server, the CLI spawned under `/usr/bin/time` (its user + system time includes every
// descendant it waited for; its %M is the largest single process). Measured: wall (spawn to
// exit), time to the first model request (at the server), time to the first byte of the answer
// on stdout, CPU of the tree, peak summed RSS of the tree (/proc samples). The run passes when
// the CLI exits 0, the server saw every file's content come back before it sent the answer, and
// stdout holds the whole answer. The ceiling only ends a hang; it is not a measurement.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startModelServer } from "./model-server.js";
import type { CliSpec } from "./peers.js";
import { makeTask } from "./task.js";
import { treeRssBytes } from "./tree.js";

export interface CliRun {
  ok: boolean;
  /** Why the run failed (exit code, server check, missing answer, ceiling). */
  error?: string;
  wallMs: number;
  firstRequestMs?: number;
  firstAnswerByteMs?: number;
  cpuMs?: number;
  treeRssMiB: number;
  maxProcessRssMiB?: number;
  modelCalls: number;
  auxiliaryCalls: number;
  unknownPaths: string[];
}

export interface RunOptions {
  /** Ends a hung run (SIGKILL to its process group). */
  ceilingMs: number;
  sampleMs?: number;
}

const squash = (text: string) => text.replace(/\s+/g, " ").trim();
const ms = (from: bigint, to: bigint | undefined) => (to === undefined ? undefined : Number(to - from) / 1e6);

/** `/usr/bin/time -f "%U %S %M"`: user s, system s, max RSS KiB. */
export function parseTime(text: string): { cpuMs: number; maxRssKiB: number } | undefined {
  const line = text.trim().split("\n").pop() ?? "";
  const match = line.match(/^(\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+)$/);
  if (!match) return undefined;
  return { cpuMs: Math.round((Number(match[1]) + Number(match[2])) * 1000), maxRssKiB: Number(match[3]) };
}

export async function runCli(spec: CliSpec, bin: string, home: string, options: RunOptions): Promise<CliRun> {
  const workdir = mkdtempSync(join(tmpdir(), `bench-cli-${spec.id.replace(/\W+/g, "-")}-`));
  const task = makeTask(Math.random().toString(36).slice(2, 10));
  for (const file of task.files) writeFileSync(join(workdir, file.name), file.text);
  const server = await startModelServer(task, workdir, spec.model);
  const timeFile = join(workdir, ".time");
  const inv = spec.invoke({ bin, home, port: server.port, prompt: task.prompt });
  const head = task.answer.slice(0, 24);
  let stdout = "";
  let stderr = "";
  let firstAnswerNs: bigint | undefined;
  let peakRss = 0;
  const start = process.hrtime.bigint();
  const child = spawn("/usr/bin/time", ["-f", "%U %S %M", "-o", timeFile, inv.command, ...inv.args], {
    cwd: workdir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...inv.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    if (firstAnswerNs === undefined && stdout.includes(head)) firstAnswerNs = process.hrtime.bigint();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-4000);
  });
  const sampler = setInterval(() => {
    if (child.pid) peakRss = Math.max(peakRss, treeRssBytes(child.pid));
  }, options.sampleMs ?? 50);
  let hung = false;
  const ceiling = setTimeout(() => {
    hung = true;
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }, options.ceilingMs);
  const exit = await new Promise<string>((resolve) => {
    child.on("error", (error) => resolve(`spawn error: ${error.message}`));
    child.on("close", (code, signal) => resolve(String(code ?? signal)));
  });
  const end = process.hrtime.bigint();
  clearInterval(sampler);
  clearTimeout(ceiling);
  // Whatever the CLI left running in its group (language servers, watchers) ends with the run.
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    // nothing left
  }
  await server.close();
  let time: ReturnType<typeof parseTime>;
  try {
    time = parseTime(readFileSync(timeFile, "utf8"));
  } catch {
    time = undefined;
  }
  if (process.env.BENCH_CLI_DEBUG)
    process.stderr.write(
      `--- ${spec.id} stdout:\n${stdout}\n--- stderr:\n${stderr}\n--- server: ${JSON.stringify(server.log, (_k, v) => (typeof v === "bigint" ? String(v) : v))}\n`,
    );
  rmSync(workdir, { recursive: true, force: true });
  const { log } = server;
  const tail = squash(stderr).slice(-160);
  const error = hung
    ? `no exit after the ${options.ceilingMs / 1000} s ceiling`
    : exit !== "0"
      ? `exit ${exit}: ${log.problems[0] ?? tail}`
      : log.problems.length > 0
        ? log.problems[0]
        : !log.answered
          ? `the server never sent the answer (${log.turns} model calls${log.unknown.length ? `; unknown ${log.unknown.join(", ")}` : ""}) ${tail}`
          : !squash(stdout).includes(squash(task.answer))
            ? "stdout does not hold the whole answer"
            : undefined;
  return {
    ok: error === undefined,
    ...(error !== undefined && { error }),
    wallMs: Number(end - start) / 1e6,
    firstRequestMs: ms(start, log.firstRequestNs),
    firstAnswerByteMs: ms(start, firstAnswerNs),
    cpuMs: time?.cpuMs,
    treeRssMiB: peakRss / 1024 / 1024,
    maxProcessRssMiB: time ? time.maxRssKiB / 1024 : undefined,
    modelCalls: log.turns,
    auxiliaryCalls: log.auxiliary,
    unknownPaths: log.unknown,
  };
}
