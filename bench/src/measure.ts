import { performance } from "node:perf_hooks";

export interface Measurement {
  wallMs: number;
  cpuMs: number;
}

/** Wall and CPU time (user + system) of `work`, in this process. */
export async function measure(work: () => Promise<void> | void): Promise<Measurement> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Prints rows as an aligned text table. */
export function printTable(title: string, rows: Record<string, string | number>[]): void {
  console.log(`\n${title}`);
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const width = (column: string) => Math.max(column.length, ...rows.map((row) => String(row[column]).length));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padStart(width(columns[i]!))).join("  ");
  console.log(line(columns));
  for (const row of rows) console.log(line(columns.map((column) => String(row[column]))));
}
