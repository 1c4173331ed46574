// Small numeric helpers for the workloads.

/** The p-th percentile (0..100) of `values` by nearest rank; NaN when empty. */
export function percentile(values: ArrayLike<number>, p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export const MiB = 1024 * 1024;

/** Peak resident set size of this process so far, in MiB (getrusage ru_maxrss). */
export const peakRssMiB = () => process.resourceUsage().maxRSS / 1024;

export function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error("the worker needs node --expose-gc");
  collect();
  collect();
}

/** Wall time (ms) and CPU time (user + system, ms) of `work` in this process. */
export async function timed(work: () => Promise<void>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}
