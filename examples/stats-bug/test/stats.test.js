import assert from "node:assert/strict";
import { test } from "node:test";
import { mean, median, sum } from "../src/stats.js";

test("sum adds every value", () => {
  assert.equal(sum([1, 2, 3, 4]), 10);
  assert.equal(sum([]), 0);
});

test("mean divides the sum by the count", () => {
  assert.equal(mean([2, 4, 6]), 4);
});

test("median picks the middle value", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
});
