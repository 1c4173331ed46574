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
