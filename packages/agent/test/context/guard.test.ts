// The context guard inside the loop: threshold compaction before a model call, overflow recovery,
// and what the model is sent.
import { createFaux, type FauxRequest, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { contextGuard } from "../../src/context/index.js";
import { agentLoop } from "../../src/loop.js";
import type { AgentEvent, AgentTool } from "../../src/types.js";
import { assertPaired, recorder, textOf, turns, user } from "./support.js";

const PREFIX = "The conversation before this point was compacted into this summary:\n\n";
const OVERFLOW = {
  error: { kind: "context_overflow" as const, message: "prompt is too long: 250000 tokens > 200000 maximum" },
};

const read: AgentTool<{ path: string }> = {
  name: "read",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  execute: ({ path }) => `contents of ${path}`,
};

async function run(
  history: ReturnType<typeof turns>,
  prompt: string,
  model: ReturnType<typeof createFaux>["model"],
  guard: ReturnType<typeof contextGuard> | undefined,
) {
  const log = recorder();
  const stream = agentLoop(
    [user(prompt)],
    { messages: history, tools: [read] },
    { model, ...(guard ? { policies: [guard] } : {}) },
  );
  for await (const event of stream) log.emit(event);
  return { events: log.events, result: await stream.result() };
}

const kinds = (events: AgentEvent[]) =>
  events
    .filter(
      (e) => e.type.startsWith("compaction") || e.type === "context_update" || e.type === "model_call_start",
    )
    .map((e) => (e.type === "model_call_start" ? `model_call:${e.purpose}` : e.type));

describe("contextGuard", () => {
  it("under budget changes nothing: the model sees exactly what it would without the guard", async () => {
    const plain = createFaux({ replies: ["done"] });
    const guarded = createFaux({ replies: ["done"] });
    const history = turns(1, 5);
    await run(history, "Fix the parser", plain.model, undefined);
    const { events } = await run(history, "Fix the parser", guarded.model, contextGuard({ budget: 10_000 }));
    expect(guarded.requests[0]!.context).toEqual(plain.requests[0]!.context);
    expect(kinds(events)).toEqual(["model_call:turn"]);
  });

  it("over budget: compacts before the model call; the summariser shows as a compaction model call", async () => {
    const model = createFaux({ replies: ["done"] });
    const summariser = createFaux({ replies: ["CARD: f01..f16 read"] });
    const history = turns(1, 20); // 8 280 tokens; the prompt makes the threshold (8 000) pass
    const guard = contextGuard({
      budget: 10_000,
      keepRecentTokens: 2_000,
      keepToolResults: 100,
      summaryModel: summariser.model,
    });
    const { events, result } = await run(history, "Fix the parser", model.model, guard);
    expect(result.stopReason).toBe("stop");
    expect(kinds(events)).toEqual([
      "compaction_start",
      "model_call:compaction",
      "compaction_end",
      "context_update",
      "model_call:turn",
    ]);
    const sent = model.requests[0]!.context.messages;
    // The tail goes back to the newest four tool turns; the prompt is the newest unit, so it is in it.
    expect(sent.map(textOf)[0]).toBe(`${PREFIX}CARD: f01..f16 read`);
    expect(sent.slice(1, 9)).toEqual(history.slice(-8));
    expect(textOf(sent[9]!)).toBe("Fix the parser");
    expect(sent).toHaveLength(10);
    // Usage of the summariser counts in the run's totals.
    const calls = events.filter((e) => e.type === "model_call_end");
    expect(calls.map((e) => e.purpose)).toEqual(["compaction", "turn"]);
    expect(result.usage.input).toBe(calls.reduce((sum, e) => sum + e.usage.input, 0));
    expect(calls[0]!.usage.input).toBeGreaterThan(0);
  });

  it("recovers from a context overflow: compacts hard, retries the turn once, and succeeds", async () => {
    const model = createFaux({ replies: [OVERFLOW, "done"] });
    const summariser = createFaux({ replies: ["CARD after overflow"] });
    const history = turns(1, 10); // about 4 100 tokens: under the guard's threshold, too long for the provider
    const guard = contextGuard({ budget: 10_000, summaryModel: summariser.model });
    const { events, result } = await run(history, "Fix the parser", model.model, guard);
    expect(result.stopReason).toBe("stop");
    expect(result.answer).toBe("done");
    expect(kinds(events)).toEqual([
      "model_call:turn",
      "compaction_start",
      "model_call:compaction",
      "compaction_end",
      "context_update",
      "model_call:turn",
    ]);
    expect(events.find((e) => e.type === "compaction_start")).toMatchObject({ reason: "overflow" });
    const end = events.find((e) => e.type === "compaction_end") as Extract<
      AgentEvent,
      { type: "compaction_end" }
    >;
    expect(end.tokensAfter).toBeLessThanOrEqual(end.tokensBefore / 2);
    const [first, retry] = model.requests as [FauxRequest, FauxRequest];
    expect(first.context.messages).toHaveLength(21);
    expect(textOf(retry.context.messages[0]!)).toBe(`${PREFIX}CARD after overflow`);
    // The failed reply is gone; the retry ends with the request, as the first call did.
    expect(retry.context.messages.some((m) => m.role === "assistant" && m.stopReason === "error")).toBe(
      false,
    );
    expect(textOf(retry.context.messages.at(-1)!)).toBe("Fix the parser");
    assertPaired(retry.context.messages);
  });

  it("a second overflow in a row ends the run with a clear error", async () => {
    const model = createFaux({ replies: [OVERFLOW, OVERFLOW, "never"] });
    const summariser = createFaux({ replies: ["CARD"] });
    const guard = contextGuard({ budget: 10_000, summaryModel: summariser.model });
    const { events, result } = await run(turns(1, 10), "Fix the parser", model.model, guard);
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toBe("prompt is too long: 250000 tokens > 200000 maximum");
    expect(model.requests).toHaveLength(2);
    expect(model.pending).toBe(1);
    const error = events.find((e) => e.type === "error");
    expect(error).toEqual({
      type: "error",
      source: "policy",
      message: `Context overflow: faux/${model.model.id} rejected the context as too long again after compacting it; the run ends. Provider said: prompt is too long: 250000 tokens > 200000 maximum`,
    });
  });

  it("an overflow after a successful retry is recovered from again", async () => {
    const model = createFaux({
      replies: [OVERFLOW, { content: [fauxToolCall("read", { path: "a.ts" })] }, OVERFLOW, "done"],
    });
    const summariser = createFaux({ replies: ["CARD-1", "CARD-2"] });
    const guard = contextGuard({ budget: 10_000, summaryModel: summariser.model });
    const { result, events } = await run(turns(1, 10), "Fix the parser", model.model, guard);
    expect(events.filter((e) => e.type === "compaction_start").map((e) => e.type)).toHaveLength(2);
    expect(result.stopReason).toBe("stop");
    expect(result.answer).toBe("done");
    // The second overflow came two turns after the first recovery: recovered again, no error.
    expect(events.some((e) => e.type === "error")).toBe(false);
  });
});
