// One table per workload: a row per metric, a column per runtime side by side, then ratios of
// tern (and tern+select where measured) to the best peer and to the baseline. Lower is better
// for every metric here, so "best peer" is the smallest peer value; a ratio under 1 means tern
// costs less.

import type { Rows } from "../benches.js";
import { RUNTIMES, type RuntimeId } from "../peers/runtimes.js";

export type Cell = number | string | undefined;

export interface MetricRow {
  metric: string;
  values: Partial<Record<RuntimeId, Cell>>;
  digits?: number;
  /** Compare tern with the baseline on this row (off for rows that are already "minus baseline"). */
  vsBaseline?: boolean;
  /** No ratios at all (counts, statuses). */
  noRatio?: boolean;
}

const fmt = (value: Cell, digits: number): string | number => {
  if (value === undefined) return "-";
  if (typeof value === "string") return value;
  if (!Number.isFinite(value)) return "-";
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

function ratio(value: Cell, reference: number | undefined): string {
  if (typeof value !== "number" || reference === undefined || !Number.isFinite(value)) return "-";
  // A ratio of a figure at or below zero (an overhead within noise of the floor) means nothing.
  if (reference <= 0 || value <= 0) return "-";
  return `${(value / reference).toFixed(2)}x`;
}

export function sideBySide(runtimes: RuntimeId[], rows: MetricRow[], subjects: RuntimeId[] = ["tern"]): Rows {
  const peers = runtimes.filter((id) => RUNTIMES[id].peer);
  const measured = subjects.filter((id) => runtimes.includes(id));
  return rows.map((row) => {
    const out: Record<string, string | number> = { metric: row.metric };
    for (const id of runtimes) out[RUNTIMES[id].label] = fmt(row.values[id], row.digits ?? 1);
    const peerValues = peers
      .map((id) => row.values[id])
      .filter((v): v is number => typeof v === "number" && Number.isFinite(v));
    const best = peerValues.length > 0 ? Math.min(...peerValues) : undefined;
    const base = row.values.baseline;
    for (const id of measured) {
      const label = RUNTIMES[id].label;
      out[`${label} / best peer`] = row.noRatio ? "" : ratio(row.values[id], best);
      out[`${label} / baseline`] =
        row.noRatio || row.vsBaseline === false
          ? ""
          : ratio(row.values[id], typeof base === "number" ? base : undefined);
    }
    return out;
  });
}

/** Median of numbers (mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** `median [min-max]` of a row's per-round numbers; statuses counted next to them. */
export function spread(values: Cell[], digits: number, suffix = ""): string | number {
  const numbers = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  const others = new Map<string, number>();
  for (const v of values)
    if (typeof v !== "number" || !Number.isFinite(v))
      others.set(String(v ?? "-"), (others.get(String(v ?? "-")) ?? 0) + 1);
  const counted = [...others].map(([text, n]) => (values.length === 1 ? text : `${text} x${n}`)).join(", ");
  if (numbers.length === 0) return counted || "-";
  const show = (v: number) => `${fmt(v, digits)}${suffix}`;
  const bound = (v: number) => String(fmt(v, digits));
  const range =
    numbers.length > 1 ? ` [${bound(Math.min(...numbers))} – ${bound(Math.max(...numbers))}]` : "";
  return `${show(median(numbers))}${range}${counted ? ` (${counted})` : ""}`;
}

/** A status-like row over rounds: the one value when all rounds agree, else each with its count. */
function tally(values: Cell[]): string {
  const counts = new Map<string, number>();
  for (const v of values)
    if (v !== undefined && v !== "") counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
  if (counts.size <= 1) return [...counts.keys()][0] ?? "";
  return [...counts].map(([text, n]) => `${text} x${n}`).join(", ");
}

/**
 * Rows matched across rounds by their metric name, not their position: a round may have rows
 * another lacks (a `why` row when something failed, a workload that died). Rows come in the
 * order they first appear; a round without a row gets it with no values, shown as `-`.
 */
export function alignRounds(rounds: MetricRow[][]): { template: MetricRow; perRound: MetricRow[] }[] {
  const templates = new Map<string, MetricRow>();
  for (const round of rounds)
    for (const row of round) if (!templates.has(row.metric)) templates.set(row.metric, row);
  return [...templates.values()].map((template) => ({
    template,
    perRound: rounds.map(
      (round) => round.find((row) => row.metric === template.metric) ?? { ...template, values: {} },
    ),
  }));
}

/**
 * The interleaved form of `sideBySide`: `rounds[r]` holds round r's rows, matched across rounds
 * by metric name (`alignRounds`). Each runtime's cell is the median of its per-round figures
 * with their range; each ratio is computed within a round (tern against that round's best peer
 * or baseline) and shown as median [min-max] over rounds. A peer without a figure in a round (failed, timed out,
 * unable) is never silently left out of "best peer": the ratio is marked `*` and a last row
 * names the peers and rounds it was computed without.
 */
export function sideBySideRounds(
  runtimes: RuntimeId[],
  rounds: MetricRow[][],
  subjects: RuntimeId[] = ["tern"],
  /** Extra ratio columns `a / b`, each computed within a round like the others. */
  pairs: [RuntimeId, RuntimeId][] = [],
): Rows {
  const peers = runtimes.filter((id) => RUNTIMES[id].peer);
  const measured = subjects.filter((id) => runtimes.includes(id));
  const missing = new Map<string, Set<number>>();
  const rows: Rows = alignRounds(rounds).map(({ template, perRound }) => {
    const out: Record<string, string | number> = { metric: template.metric };
    const digits = template.digits ?? 1;
    const numeric = perRound.some((row) => Object.values(row.values).some((v) => typeof v === "number"));
    for (const id of runtimes) {
      const values = perRound.map((row) => row.values[id]);
      out[RUNTIMES[id].label] = numeric ? spread(values, digits) : tally(values);
    }
    for (const id of measured) {
      const label = RUNTIMES[id].label;
      if (template.noRatio) {
        out[`${label} / best peer`] = "";
        out[`${label} / baseline`] = "";
        continue;
      }
      let marked = false;
      const vsPeer = perRound.map((row, r) => {
        const values = peers.map((peer) => [peer, row.values[peer]] as const);
        const usable = values.filter(([, v]) => typeof v === "number" && Number.isFinite(v) && v > 0);
        for (const [peer, v] of values) {
          if (typeof v === "number" && Number.isFinite(v)) continue;
          marked = true;
          const key = `${RUNTIMES[peer].label} (${String(v ?? "no figure")})`;
          if (!missing.has(key)) missing.set(key, new Set());
          missing.get(key)!.add(r + 1);
        }
        const best = usable.length > 0 ? Math.min(...usable.map(([, v]) => v as number)) : undefined;
        return ratioValue(row.values[id], best);
      });
      out[`${label} / best peer`] = `${spread(vsPeer, 2, "x")}${marked ? " *" : ""}`;
      out[`${label} / baseline`] =
        template.vsBaseline === false
          ? ""
          : spread(
              perRound.map((row) => {
                const base = row.values.baseline;
                return ratioValue(row.values[id], typeof base === "number" ? base : undefined);
              }),
              2,
              "x",
            );
    }
    for (const [a, b] of pairs) {
      const column = `${RUNTIMES[a].label} / ${RUNTIMES[b].label}`;
      out[column] = template.noRatio
        ? ""
        : spread(
            perRound.map((row) => {
              const reference = row.values[b];
              return ratioValue(row.values[a], typeof reference === "number" ? reference : undefined);
            }),
            2,
            "x",
          );
    }
    return out;
  });
  if (missing.size > 0 && rows[0]) {
    const without = [...missing].map(([peer, set]) => `${peer} in rounds ${[...set].join(",")}`).join("; ");
    const note: Record<string, string | number> = {};
    for (const column of Object.keys(rows[0])) note[column] = "";
    note.metric = `* best peer computed without: ${without}`;
    rows.push(note);
  }
  return rows;
}

function ratioValue(value: Cell, reference: number | undefined): number | string {
  if (typeof value !== "number" || reference === undefined || !Number.isFinite(value)) return "-";
  if (reference <= 0 || value <= 0) return "-";
  return value / reference;
}
