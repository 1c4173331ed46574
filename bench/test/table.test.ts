// Rounds are matched by row name: a round with an extra `why` row (something failed) or without a
// row no longer shifts the others, and the failed round is counted in its cells.
import { describe, expect, it } from "vitest";
import { alignRounds, type MetricRow, sideBySideRounds } from "../src/workloads/table.js";

const ok = (cpu: number, wall: number): MetricRow[] => [
  { metric: "cpu ms", values: { baseline: cpu, tern: cpu * 2, pi: cpu * 3 } },
  { metric: "wall ms", values: { baseline: wall, tern: wall * 2, pi: wall * 3 } },
  { metric: "status", values: { baseline: "ok", tern: "ok", pi: "ok" }, noRatio: true },
];

// Round 1: pi failed, so its figures are statuses and a `why` row follows status.
const failedRound: MetricRow[] = [
  { metric: "cpu ms", values: { baseline: 10, tern: 20, pi: "failed" } },
  { metric: "wall ms", values: { baseline: 100, tern: 200, pi: "failed" } },
  { metric: "status", values: { baseline: "ok", tern: "ok", pi: "failed" }, noRatio: true },
  { metric: "why (see log above)", values: { pi: "seq: 3/40 runs completed" }, noRatio: true },
];

describe("alignRounds", () => {
  it("matches rows by metric, in order of first appearance, filling a missing row with no values", () => {
    const aligned = alignRounds([failedRound, ok(10, 100), ok(12, 110).slice(1)]);
    expect(aligned.map((a) => a.template.metric)).toEqual([
      "cpu ms",
      "wall ms",
      "status",
      "why (see log above)",
    ]);
    const cpu = aligned[0]!.perRound;
    expect(cpu.map((row) => row.values.tern)).toEqual([20, 20, undefined]);
    const why = aligned[3]!.perRound;
    expect(why.map((row) => row.values.pi)).toEqual(["seq: 3/40 runs completed", undefined, undefined]);
  });
});

describe("sideBySideRounds", () => {
  it("keeps every round when one round has a failed row and an extra one", () => {
    const rows = sideBySideRounds(["baseline", "tern", "pi"], [failedRound, ok(10, 100), ok(14, 120)]);
    const byMetric = Object.fromEntries(rows.map((row) => [row.metric, row]));
    expect(byMetric["cpu ms"]!.tern).toBe("20 [20 – 28]");
    expect(byMetric["cpu ms"]!.pi).toBe("36 [30 – 42] (failed x1)");
    expect(byMetric["wall ms"]!.baseline).toBe("100 [100 – 120]");
    expect(byMetric.status!.pi).toBe("failed x1, ok x2");
    expect(byMetric["why (see log above)"]!.pi).toBe("seq: 3/40 runs completed");
    // The ratio for round 1 is computed without pi, and the table says so.
    expect(rows.at(-1)!.metric).toMatch(/best peer computed without: pi \(failed\) in rounds 1/);
  });
});
