// `npm run bench clis`: tern against the coding-agent CLIs people would use instead, each the
// real package from npm, driven non-interactively on the same 6-turn task (task.ts) against a
// loopback server speaking its wire format (model-server.ts). Each CLI gets one unmeasured run
// first (a fresh HOME: first-run set-up, shown apart), then BENCH_ROUNDS interleaved rounds
// (every CLI once a round, order rotated). A CLI that cannot be installed or fails a run is
// marked with the reason; nothing here is fatal. Results are written after every round.

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Rows } from "../benches.js";
import { Pace } from "../workloads/pace.js";
import { rotation } from "../workloads/suite.js";
import { type Cell, spread } from "../workloads/table.js";
import { ensureInstalled } from "./install.js";
import { type CliSpec, cliSpecs } from "./peers.js";
import { type CliRun, runCli } from "./run-cli.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const RESULTS = fileURLToPath(new URL("../../results/", import.meta.url));
/** The unmeasured first run and round 1 may be slow (first-run set-up on a loaded machine). */
const FIRST_CEILING_MS = 300_000;

export type Outcome = CliRun | { ok: false; error: string; unable: true };

export interface Entry {
  spec: CliSpec;
  version: string;
  bin?: string;
  home?: string;
  unable?: string;
  firstRun?: Outcome;
  rounds: (Outcome | undefined)[];
}

function ternVersion(): string {
  try {
    return `${execFileSync("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim()} (this tree)`;
  } catch {
    return "this tree";
  }
}

const num = (v: number | undefined): Cell => (v === undefined ? "-" : v);

/** The CLI the issue's targets are stated against (tern ≤ 0.5x its first request, ≤ 0.7x its CPU). */
export const REFERENCE_CLI = "codex";

type Pick = (r: CliRun) => number | undefined;

/**
 * A CLI's figure over the reference CLI's, computed within each round (the same load on both),
 * then `median [min – max]` over the rounds where both runs passed.
 */
export function ratioInRounds(
  rounds: (Outcome | undefined)[],
  reference: (Outcome | undefined)[],
  pick: Pick,
): string {
  const ratios: number[] = [];
  const passed = (o: Outcome | undefined): o is CliRun => o?.ok === true;
  rounds.forEach((run, r) => {
    const ref = reference[r];
    if (!passed(run) || !passed(ref)) return;
    const [a, b] = [pick(run), pick(ref)];
    if (a !== undefined && b !== undefined && a > 0 && b > 0) ratios.push(a / b);
  });
  return ratios.length === 0 ? "-" : String(spread(ratios, 2, "x"));
}

/** One table row per CLI: medians [min – max] of its measured rounds, failures counted. */
export function cliRows(entries: Entry[]): Rows {
  const reference = entries.find((e) => e.spec.id === REFERENCE_CLI)?.rounds ?? [];
  return entries.map(({ spec, version, unable, firstRun, rounds }) => {
    const done = rounds.filter((r): r is Outcome => r !== undefined);
    const ok = done.filter((r): r is CliRun => r.ok);
    const failures = done.filter((r) => !r.ok);
    const pick = (f: (r: CliRun) => number | undefined, digits = 0) =>
      ok.length === 0
        ? "-"
        : spread(
            ok.map((r) => num(f(r))),
            digits,
          );
    return {
      cli: spec.id,
      version,
      status: unable ? `unable: ${unable}` : `${ok.length}/${done.length} ok`,
      "wall ms": pick((r) => r.wallMs),
      "first request ms": pick((r) => r.firstRequestMs),
      "first answer byte ms": pick((r) => r.firstAnswerByteMs),
      "cpu ms (tree)": pick((r) => r.cpuMs),
      "peak RSS MiB (tree)": pick((r) => r.treeRssMiB),
      "model calls": pick((r) => r.modelCalls),
      [`first request x ${REFERENCE_CLI}`]: ratioInRounds(rounds, reference, (r) => r.firstRequestMs),
      [`cpu x ${REFERENCE_CLI}`]: ratioInRounds(rounds, reference, (r) => r.cpuMs),
      [`peak RSS x ${REFERENCE_CLI}`]: ratioInRounds(rounds, reference, (r) => r.treeRssMiB),
      "first run, fresh HOME: wall ms": firstRun
        ? firstRun.ok
          ? Math.round(firstRun.wallMs)
          : `failed: ${(firstRun.error ?? "").slice(0, 80)}`
        : "-",
      why:
        failures.length > 0 ? `${failures.length} failed: ${(failures[0]!.error ?? "").slice(0, 140)}` : "",
    };
  });
}

function markdown(rows: Rows, header: string): string {
  const columns = Object.keys(rows[0] ?? {});
  const cell = (v: unknown) => String(v).replace(/\|/g, "\\|");
  return [
    header,
    "",
    `| ${columns.join(" | ")} |`,
    `| ${columns.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${columns.map((c) => cell(row[c])).join(" | ")} |`),
    "",
  ].join("\n");
}

function save(entries: Entry[], meta: Record<string, unknown>, roundsDone: number, rounds: number): Rows {
  const rows = cliRows(entries);
  mkdirSync(RESULTS, { recursive: true });
  const stem = join(RESULTS, `clis-${String(meta.date).slice(0, 10)}`);
  const raw = entries.map(({ spec, version, unable, firstRun, rounds: r }) => ({
    cli: spec.id,
    version,
    wire: spec.wire,
    quiet: spec.quiet,
    unable,
    firstRun,
    rounds: r,
  }));
  writeFileSync(`${stem}.json`, `${JSON.stringify({ ...meta, roundsDone, rounds, clis: raw }, null, 2)}\n`);
  const header = [
    `# npm run bench clis: ${roundsDone}/${rounds} rounds (${String(meta.date)})`,
    "",
    `Node ${process.version}, ${cpus().length} CPUs, load average ${String(meta.load)} at the start. Medians [min – max] over the rounds; every CLI once a round, order rotated.`,
    "",
    "Offline and telemetry switches given to each CLI:",
    "",
    ...entries.map((e) => `- ${e.spec.id}: ${e.spec.quiet}`),
  ].join("\n");
  writeFileSync(`${stem}.md`, markdown(rows, header));
  return rows;
}

/** `BENCH_CLIS=tern,codex` keeps the CLIs whose id starts with one of the names (both tern rows here). */
function chosenSpecs(filter = process.env.BENCH_CLIS): CliSpec[] {
  const names = (filter ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const specs = cliSpecs();
  return names.length === 0 ? specs : specs.filter((spec) => names.some((name) => spec.id.startsWith(name)));
}

export async function clisBench(rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 10))): Promise<Rows> {
  const progress = (line: string) => process.stderr.write(`  clis: ${line}\n`);
  const entries: Entry[] = [];
  for (const spec of chosenSpecs()) {
    const entry: Entry = { spec, version: spec.npm?.version ?? ternVersion(), rounds: [] };
    if (spec.npm) {
      progress(`installing ${spec.npm.name}@${spec.npm.version} (once, into bench/.peers/${spec.id})`);
      const installed = await ensureInstalled(spec.id, spec.npm);
      if (installed.ok) entry.bin = installed.bin;
      else entry.unable = installed.reason;
    } else entry.bin = process.execPath;
    entry.home = mkdtempSync(join(tmpdir(), `bench-cli-home-${spec.id.replace(/\W+/g, "-")}-`));
    entries.push(entry);
  }
  const meta = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    load: loadavg()
      .map((l) => l.toFixed(1))
      .join(" "),
  };
  const pace = new Pace({ firstMs: FIRST_CEILING_MS, factor: 4, floorMs: 60_000 });
  const run = async (entry: Entry, ceilingMs: number): Promise<Outcome> => {
    if (entry.unable) return { ok: false, unable: true, error: entry.unable };
    try {
      return await runCli(entry.spec, entry.bin!, entry.home!, { ceilingMs });
    } catch (error) {
      return { ok: false, unable: true, error: `bench: ${(error as Error).message}` };
    }
  };
  for (const entry of entries) {
    entry.firstRun = await run(entry, FIRST_CEILING_MS);
    progress(
      `${entry.spec.id} first run: ${entry.firstRun.ok ? `${Math.round(entry.firstRun.wallMs)} ms` : entry.firstRun.error}`,
    );
  }
  let rows: Rows = [];
  for (let r = 0; r < rounds; r++) {
    for (const entry of rotation(entries, r)) {
      const outcome = await run(entry, pace.limit(entry.spec.id));
      if (outcome.ok) pace.record(entry.spec.id, outcome.wallMs);
      entry.rounds[r] = outcome;
      progress(
        `round ${r + 1}/${rounds} ${entry.spec.id}: ${outcome.ok ? `${Math.round(outcome.wallMs)} ms` : outcome.error}`,
      );
    }
    rows = save(entries, meta, r + 1, rounds);
  }
  return rows;
}
