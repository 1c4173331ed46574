// Worker limits follow the row's own earlier rounds; the first round gets the generous ceiling.
import { describe, expect, it } from "vitest";
import { Pace, paceLimit } from "../src/workloads/pace.js";

describe("paceLimit", () => {
  it("is the first-round ceiling while the row has no finished round", () => {
    expect(paceLimit([], { firstMs: 600_000, factor: 4, floorMs: 10_000 })).toBe(600_000);
    expect(paceLimit([Number.NaN, 0], { firstMs: 600_000, factor: 4, floorMs: 10_000 })).toBe(600_000);
  });

  it("is factor x the median of earlier rounds, never below the floor", () => {
    expect(paceLimit([20_000, 40_000, 30_000], { firstMs: 600_000, factor: 4, floorMs: 10_000 })).toBe(
      120_000,
    );
    expect(paceLimit([1_000, 2_000], { firstMs: 600_000, factor: 4, floorMs: 30_000 })).toBe(30_000);
  });

  it("grows with a slower machine: a slow round raises the next limit", () => {
    const pace = new Pace({ firstMs: 600_000, factor: 3, floorMs: 1 });
    pace.record("tern/seq", 10_000);
    expect(pace.limit("tern/seq")).toBe(30_000);
    pace.record("tern/seq", 50_000);
    expect(pace.limit("tern/seq")).toBe(90_000);
    expect(pace.limit("pi/seq")).toBe(600_000);
  });
});
