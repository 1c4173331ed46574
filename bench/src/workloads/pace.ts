// Time limits that follow the machine's pace. A row (a runtime's phase, a CLI) gets a generous
// ceiling in its first round; later rounds get k times the median of its earlier rounds' times,
// never below a floor, so a loaded machine slows every limit with it instead of a fixed 150 s
// cutting good runs short or letting a hang eat the run. Limits end hangs; they measure nothing.

import { median } from "./table.js";

export interface PaceOptions {
  /** The ceiling while the row has no finished round. */
  firstMs: number;
  /** Multiple of the median of earlier rounds. */
  factor: number;
  /** Lowest limit. */
  floorMs: number;
}

/** The limit for a row's next round, from the wall times of its earlier finished rounds. */
export function paceLimit(earlierMs: number[], options: PaceOptions): number {
  const finished = earlierMs.filter((ms) => Number.isFinite(ms) && ms > 0);
  if (finished.length === 0) return options.firstMs;
  return Math.max(options.floorMs, Math.round(options.factor * median(finished)));
}

/** Wall times per row key, and the limit each key gets next. */
export class Pace {
  private readonly times = new Map<string, number[]>();
  constructor(private readonly options: PaceOptions) {}

  limit(key: string): number {
    return paceLimit(this.times.get(key) ?? [], this.options);
  }

  /** Records a finished round of `key` (failed or timed-out rounds are not a pace). */
  record(key: string, wallMs: number): void {
    this.times.set(key, [...(this.times.get(key) ?? []), wallMs]);
  }
}
