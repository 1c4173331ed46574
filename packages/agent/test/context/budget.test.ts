// Budgets per model and the estimates compared with them.
import { createFaux } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { compact, contextBudget, estimateContext } from "../../src/context/index.js";
import { result, turn, user } from "./support.js";

describe("contextBudget", () => {
  it("is the window minus the output reserve minus a 5% margin", () => {
    const faux = createFaux({ contextWindow: 100_000, maxOutputTokens: 8_000 });
    expect(contextBudget(faux.model)).toEqual({
      contextWindow: 100_000,
      maxOutputTokens: 8_000,
      margin: 5_000,
      tokens: 87_000,
    });
    // The call's own maxTokens is what the provider reserves.
    expect(contextBudget(faux.model, {}, 2_000).tokens).toBe(93_000);
  });

  it("takes overrides, globally and per model id", () => {
    const small = createFaux({ contextWindow: 10_000, maxOutputTokens: 1_000 });
    const big = createFaux({ contextWindow: 200_000, maxOutputTokens: 64_000 });
    const options = { margin: 100, models: { [big.model.id]: { budget: 50_000 } } };
    expect(contextBudget(small.model, options).tokens).toBe(8_900);
    expect(contextBudget(big.model, options).tokens).toBe(50_000);
    expect(contextBudget(small.model, { contextWindow: 4_000, maxOutputTokens: 500, margin: 0 }).tokens).toBe(
      3_500,
    );
  });

  it("keeps at least a quarter of the window when the output reserve eats it", () => {
    const faux = createFaux({ contextWindow: 8_000, maxOutputTokens: 8_000 });
    expect(contextBudget(faux.model).tokens).toBe(2_000);
  });
});

describe("estimates", () => {
  it("count the system prompt and the tools too", () => {
    const messages = [user("12345678")]; // 4 + 2
    expect(estimateContext(messages)).toBe(6);
    expect(estimateContext(messages, { systemPrompt: "x".repeat(400) })).toBe(106);
    const tools = [{ name: "read", description: "Read a file", parameters: { type: "object" } }];
    // "read" 1, "Read a file" 3, '{"type":"object"}' 5
    expect(estimateContext(messages, { tools })).toBe(15);
  });

  it("count CJK text heavier than Latin text of the same length", () => {
    expect(estimateContext([user("漢".repeat(3_000))])).toBe(3_004);
    expect(estimateContext([user("a".repeat(3_000))])).toBe(754);
  });

  it("a CJK transcript crosses the threshold where a Latin one of the same length does not", async () => {
    const faux = createFaux({ replies: ["CARD"] });
    const build = (fill: string) => [
      user("Translate the manual", true),
      ...[1, 2, 3, 4, 5, 6].flatMap((n) => [turn(n)[0], result(`c${n}`, fill.repeat(1_600))]),
    ];
    const options = { budget: 10_000, reason: "threshold" as const };
    const latin = await compact(build("a"), faux.model, undefined, options); // about 2 500 tokens
    const cjk = await compact(build("語"), faux.model, undefined, options); // about 9 700 tokens
    expect(latin.method).toBe("none");
    expect(cjk.method).toBe("summary");
    const overBudgetTokens = 8_000; // a token count, not a time: CJK text weighs more per character
    expect(cjk.tokensBefore).toBeGreaterThan(overBudgetTokens);
    expect(faux.requests).toHaveLength(1);
  });
});
