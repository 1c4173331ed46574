import type { Model, Usage } from "./types.js";

export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** Fills `usage.totalTokens` and `usage.cost` from the token counts and the model's prices. */
export function priceUsage(model: Model, usage: Usage): Usage {
  const perToken = (pricePerMillion: number) => pricePerMillion / 1_000_000;
  usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  usage.cost.input = usage.input * perToken(model.prices.input);
  usage.cost.output = usage.output * perToken(model.prices.output);
  usage.cost.cacheRead = usage.cacheRead * perToken(model.prices.cacheRead);
  usage.cost.cacheWrite = usage.cacheWrite * perToken(model.prices.cacheWrite);
  usage.cost.total = usage.cost.input + usage.cost.output + usage.cost.cacheRead + usage.cost.cacheWrite;
  return usage;
}

/** Adds `usage` into `total` in place (running totals need no new object per event). */
export function addUsageInto(total: Usage, usage: Usage): Usage {
  total.input += usage.input;
  total.output += usage.output;
  total.cacheRead += usage.cacheRead;
  total.cacheWrite += usage.cacheWrite;
  total.totalTokens += usage.totalTokens;
  total.cost.input += usage.cost.input;
  total.cost.output += usage.cost.output;
  total.cost.cacheRead += usage.cost.cacheRead;
  total.cost.cacheWrite += usage.cost.cacheWrite;
  total.cost.total += usage.cost.total;
  return total;
}

/** Sums usages into a new object (for totals across turns and attempts). */
export function addUsage(...usages: Usage[]): Usage {
  const sum = emptyUsage();
  for (const usage of usages) addUsageInto(sum, usage);
  return sum;
}
