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

/** Sums usages into a new object (for totals across turns and attempts). */
export function addUsage(...usages: Usage[]): Usage {
  const sum = emptyUsage();
  for (const u of usages) {
    sum.input += u.input;
    sum.output += u.output;
    sum.cacheRead += u.cacheRead;
    sum.cacheWrite += u.cacheWrite;
    sum.totalTokens += u.totalTokens;
    sum.cost.input += u.cost.input;
    sum.cost.output += u.cost.output;
    sum.cost.cacheRead += u.cost.cacheRead;
    sum.cost.cacheWrite += u.cost.cacheWrite;
    sum.cost.total += u.cost.total;
  }
  return sum;
}
