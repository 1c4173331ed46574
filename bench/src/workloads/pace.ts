// Time limits that follow the machine's pace. A row (a runtime's phase, a CLI) gets a generous
// ceiling in its first round; later rounds get k times the median of its earlier rounds' times,
// never below a floor, so a loaded machine slows every limit with it instead of a fixed 150 s
// cutting good runs short or letting a hang eat the run. Limits end hangs; they measure nothing.

import { median } from "./table.js";

export interface PaceOptions {
  /** The ceiling while the row has no finished round. */
  firstMs: number;
  /** Multiple of the median of earlier rounds. Default 4. */
  factor?: number;
  /** Lowest limit. Default 10 s. */
  floorMs?: number;
}

export const DEFAULT_PACE_FACTOR = 4;
export const DEFAULT_PACE_FLOOR_MS = 10_000;

/** The limit for a row's next round, from the wall times of its earlier finished rounds. */
export function paceLimit(earlierMs: number[], options: PaceOptions): number {
  const finished = earlierMs.filter((ms) => Number.isFinite(ms) && ms > 0);
  if (finished.length === 0) return options.firstMs;
  const limit = (options.factor ?? DEFAULT_PACE_FACTOR) * median(finished);
  return Math.max(options.floorMs ?? DEFAULT_PACE_FLOOR_MS, Math.round(limit));
}

/** Wall times per row key, and the limit each key gets next. */
export class Pace {
  private readonly times = new Map<string, number[]>();
  constructor(private readonly options: Omit<PaceOptions, "firstMs">) {}

  limit(key: string, firstMs: number): number {
    return paceLimit(this.times.get(key) ?? [], { ...this.options, firstMs });
  }

  /** Records a finished round of `key` (failed or timed-out rounds are not a pace). */
  record(key: string, wallMs: number): void {
    this.times.set(key, [...(this.times.get(key) ?? []), wallMs]);
  }
}
