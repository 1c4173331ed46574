// Runs a workload's phases for every runtime against one server, in interleaved rounds: each
// round runs every runtime once, in an order rotated by one each round, so load on a shared
// machine falls on every runtime alike and each round gives its own ratios (the tables show
// their median and range). After each round it checks the server's counts: every run completed,
// nothing rejected, and the same tool-result digest as every other runtime in the phase (same
// run ids, same results, so the same work). A runtime that fails a check is reported as such,
// with the reason printed and kept in the notes row. A worker's time limit follows the pace of
// its own earlier rounds (pace.ts), and every round's outcomes are written to
// bench/results/partial-<workload>.json as soon as the round ends, so a crash late in a long run
// keeps what was measured.

import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { RUNTIMES, type RuntimeId } from "../peers/runtimes.js";
import type { WorkloadId } from "../peers/script.js";
import { type Metrics, progress, runWorker, startServer, type WorkerOutcome } from "./harness.js";
import { Pace } from "./pace.js";
import type { MetricRow } from "./table.js";

export interface PhaseSpec {
  phase: string;
  /** Runs the server must see completed (warm-up included). */
  expectedRuns: number;
}

/**
 * A worker's time limit: 600 s in its row's first round (generous, since nothing is known of the
 * pace yet), then 4x the median of the row's earlier rounds, at least 30 s.
 */
const PACE = { firstMs: 600_000, factor: 4, floorMs: 30_000 };
/** A row that ran out of time this often is not run again (marked as such), so it costs no more. */
const MAX_TIMEOUTS = 2;
const PARTIAL_DIR = fileURLToPath(new URL("../../results/", import.meta.url));

/** One round's outcomes, by runtime and phase. */
export type Outcomes = Partial<Record<RuntimeId, Record<string, WorkerOutcome>>>;

/** Rounds per workload: BENCH_ROUNDS, default 10 (the issue asks for at least 10). */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 10));

/** `runtimes` rotated left by `round`: every runtime takes every position in turn. */
export function rotation<T>(runtimes: T[], round: number): T[] {
  const k = round % runtimes.length;
  return [...runtimes.slice(k), ...runtimes.slice(0, k)];
}

export async function runSuite(
  workload: WorkloadId,
  runtimes: RuntimeId[],
  phases: PhaseSpec[],
  rounds = ROUNDS,
): Promise<Outcomes[]> {
  const server = await startServer();
  const all: Outcomes[] = [];
  const pace = new Pace(PACE);
  const timeouts = new Map<string, number>();
  try {
    for (let round = 0; round < rounds; round++) {
      const outcomes: Outcomes = {};
      for (const id of rotation(runtimes, round)) {
        outcomes[id] = {};
        for (const spec of phases) {
          const started = Date.now();
          const args = { workload, runtime: id, phase: spec.phase, round };
          const key = `${id}/${spec.phase}`;
          const limit = pace.limit(key);
          const skip = (timeouts.get(key) ?? 0) >= MAX_TIMEOUTS;
          const result: WorkerOutcome = skip
            ? {
                ok: false,
                status: "timeout",
                error: `not run: hit its limit in ${MAX_TIMEOUTS} earlier rounds`,
              }
            : await runWorker(server, args, limit).then(
                (outcome) => check(outcome, spec),
                (error: unknown): WorkerOutcome => ({
                  ok: false,
                  status: "failed",
                  error: `bench: ${(error as Error).message}`,
                }),
              );
          if (result.ok) pace.record(key, Date.now() - started);
          else if (result.status === "timeout" && !skip) timeouts.set(key, (timeouts.get(key) ?? 0) + 1);
          outcomes[id][spec.phase] = result;
          const seconds = ((Date.now() - started) / 1000).toFixed(1);
          progress(
            `${workload}/${spec.phase} round ${round + 1}/${rounds} ${RUNTIMES[id].label}: ${result.ok ? "ok" : `${result.status}: ${result.error}`} (${seconds} s)`,
          );
        }
      }
      for (const spec of phases) sameWork(outcomes, runtimes, spec.phase);
      all.push(outcomes);
      savePartial(workload, all);
    }
  } finally {
    server.close();
  }
  return all;
}

/** Every finished round so far, raw, for a run that does not reach its tables. */
function savePartial(workload: WorkloadId, all: Outcomes[]): void {
  try {
    mkdirSync(PARTIAL_DIR, { recursive: true });
    writeFileSync(
      `${PARTIAL_DIR}partial-${workload}.json`,
      `${JSON.stringify({ workload, date: new Date().toISOString(), rounds: all }, null, 2)}\n`,
    );
  } catch (error) {
    progress(`could not write partial results: ${(error as Error).message}`);
  }
}

function check(outcome: WorkerOutcome, spec: PhaseSpec): WorkerOutcome {
  if (!outcome.ok) return outcome;
  const { report } = outcome;
  if (report.rejected > 0)
    return {
      ok: false,
      status: "failed",
      error: `server rejected ${report.rejected}: ${report.rejectSamples[0]}`,
      report,
    };
  if (report.completedRuns !== spec.expectedRuns)
    return {
      ok: false,
      status: "failed",
      error: `${report.completedRuns}/${spec.expectedRuns} runs completed`,
      report,
    };
  return outcome;
}

/** Every runtime in a phase must have the digest most runtimes have (the baseline's when it has one). */
function sameWork(outcomes: Outcomes, runtimes: RuntimeId[], phase: string): void {
  const digests = runtimes
    .map((id) => outcomes[id]?.[phase])
    .filter((o) => o?.ok)
    .map((o) => o!.report!.digest);
  const base = outcomes.baseline?.[phase];
  const reference = base?.ok ? base.report.digest : mostCommon(digests);
  for (const id of runtimes) {
    const outcome = outcomes[id]?.[phase];
    if (outcome?.ok && outcome.report.digest !== reference)
      outcomes[id]![phase] = {
        ok: false,
        status: "failed",
        error: `tool results differ from the other runtimes (digest ${outcome.report.digest} vs ${reference})`,
        report: outcome.report,
      };
  }
}

function mostCommon(values: string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** A metric of one phase for every runtime that completed it; failed runtimes show their status. */
export function metricOf(
  outcomes: Outcomes,
  runtimes: RuntimeId[],
  phase: string,
  pick: (metrics: Metrics, outcome: WorkerOutcome & { ok: true }) => number | string | undefined,
): MetricRow["values"] {
  const values: MetricRow["values"] = {};
  for (const id of runtimes) {
    const outcome = outcomes[id]?.[phase];
    values[id] = !outcome ? "n/a" : outcome.ok ? pick(outcome.metrics, outcome) : outcome.status;
  }
  return values;
}

/**
 * "ok" per runtime, or the first failing phase's status; plus a notes row when anything failed.
 * Over several rounds each round's status is one value of the row (the table counts failures).
 */
export function statusRows(outcomes: Outcomes, runtimes: RuntimeId[]): MetricRow[] {
  const status: MetricRow["values"] = {};
  const notes: MetricRow["values"] = {};
  let anyNote = false;
  for (const id of runtimes) {
    const failed = Object.entries(outcomes[id] ?? {}).find(([, o]) => !o.ok);
    status[id] = failed ? (failed[1] as { status: string }).status : "ok";
    if (failed) {
      anyNote = true;
      notes[id] = `${failed[0]}: ${(failed[1] as { error: string }).error}`.slice(0, 60);
    }
  }
  const warned: MetricRow["values"] = {};
  let anyWarning = false;
  for (const id of runtimes) {
    const counts = new Map<string, number>();
    for (const outcome of Object.values(outcomes[id] ?? {}))
      for (const part of outcome.ok ? String(outcome.metrics.warnings ?? "").split(", ") : []) {
        const match = part.match(/^(.*) x(\d+)$/);
        if (match) counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + Number(match[2]));
      }
    warned[id] = [...counts].map(([name, count]) => `${name} x${count}`).join(", ") || "-";
    if (counts.size > 0) anyWarning = true;
  }
  const rows: MetricRow[] = [{ metric: "status", values: status, noRatio: true }];
  if (anyWarning) rows.push({ metric: "process warnings (all phases)", values: warned, noRatio: true });
  if (anyNote) rows.push({ metric: "why (see log above)", values: notes, noRatio: true });
  return rows;
}

/** The workload's runtimes, narrowed by BENCH_RUNTIMES=baseline,tern,... (the baseline is always kept). */
export function selectedRuntimes(all: RuntimeId[]): RuntimeId[] {
  const wanted = process.env.BENCH_RUNTIMES?.split(",").map((s) => s.trim());
  if (!wanted) return all;
  return all.filter((id) => id === "baseline" || wanted.includes(id));
}

export { startServer };
