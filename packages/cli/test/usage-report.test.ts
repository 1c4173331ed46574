// The usage report's arithmetic on stored events, including ones an older or hand-edited session
// may hold: missing counts, no cost, no timestamp. Nothing is NaN and nothing throws.
import { type EventEntry, usageFoldOf } from "@tern/session";
import { describe, expect, it } from "vitest";
import { knownCost, usageReport } from "../src/usage/usage-report.js";

function callEnd(model: string, usage: unknown, timestamp: unknown = "2026-11-30T10:00:00.000Z"): EventEntry {
  return {
    type: "event",
    seq: 1,
    timestamp,
    event: { type: "model_call_end", provider: "p", model, purpose: "turn", usage },
  } as unknown as EventEntry;
}

const full = (cost: number) => ({
  input: 10,
  output: 5,
  cacheRead: 2,
  cacheWrite: 1,
  totalTokens: 18,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
});

describe("usageReport", () => {
  it("counts malformed events as zero where a field is missing, and never as a priced $0", () => {
    const report = usageReport(
      [
        {
          id: "s1",
          title: "t",
          usage: usageFoldOf([
            callEnd("known", full(0.5)),
            callEnd("unknown", { input: 3 }, null),
            callEnd("unknown", full(0)),
            {
              type: "event",
              seq: 4,
              timestamp: "x",
              event: { type: "tool_execution_end" },
            } as unknown as EventEntry,
          ]),
        },
      ],
      { by: "day", hasPrice: (_provider, model) => model === "known" },
    );
    expect(report.total).toMatchObject({
      calls: 3,
      input: 23,
      output: 10,
      cacheRead: 4,
      cacheWrite: 2,
      unpricedCalls: 2,
    });
    expect(knownCost(report.total)).toBe(0.5);
    expect(report.rows.map((row) => row.key)).toEqual(["2026-11-30", "unknown"]);
    expect(knownCost(report.rows.find((row) => row.key === "unknown")!)).toBeNull();
  });

  it("--since leaves out calls before the instant and calls with no readable time", () => {
    const events = [
      callEnd("a", full(1), "2026-11-01T00:00:00.000Z"),
      callEnd("a", full(1), "2026-12-01T00:00:00.000Z"),
      callEnd("a", full(1), "bad"),
    ];
    const since = Date.parse("2026-11-15T00:00:00Z");
    const report = usageReport([{ id: "s", title: "", usage: usageFoldOf(events, since) }], {
      by: "model",
      hasPrice: () => true,
    });
    expect(report.total.calls).toBe(1);
  });
});
