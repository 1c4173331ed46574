import type { ToolResultMessage } from "@tern/ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentTool, answerSynthesis } from "../../src/index.js";
import { SYNTHESIS_SYSTEM_PROMPT, TRUNCATION_MARK } from "../../src/policies/answer-synthesis.js";
import { iterationLimit } from "../../src/policies/iteration-limit.js";
import { textOf } from "../helpers.js";
import { fauxFor, MODES, ofType, replies, run } from "./support.js";

function big(size: number): AgentTool<Record<string, never>> {
  return {
    name: "big",
    description: "Returns a long text",
    parameters: z.object({}),
    execute: () => "x".repeat(size),
  };
}

for (const mode of MODES) {
  const r = replies(mode);

  describe(`answer synthesis (${mode})`, () => {
    it("writes the answer from the trace in a separate streamed call; results cut at 2,000 characters", async () => {
      const faux = fauxFor(mode, [r.call("big"), r.answer("draft"), "The answer is **x**."]);
      const { events, result } = await run(faux, [big(2_500)], [answerSynthesis()]);
      expect(result).toMatchObject({ answer: "The answer is **x**.", stopReason: "stop", iterations: 2 });
      expect(ofType(events, "model_call_end").map((e) => e.purpose)).toEqual(["turn", "turn", "synthesis"]);
      const request = faux.requests[2]!;
      expect(request.context.systemPrompt).toBe(SYNTHESIS_SYSTEM_PROMPT);
      expect(request.context.tools).toBeUndefined();
      const trace = textOf(request.context.messages[0]);
      expect(
        trace.startsWith(
          "Question:\nWhat is the answer?\n\nTool calls and their results:\n1. big {}\nResult:\n",
        ),
      ).toBe(true);
      expect(trace).toContain(`${"x".repeat(2_000)}${TRUNCATION_MARK}`);
      expect(trace).not.toContain("x".repeat(2_001));
      // The loop ran without text deltas; the answer streamed through the answer events.
      expect(ofType(events, "message_update")).toHaveLength(0);
      const answerEvents = events.filter((e) => e.type.startsWith("answer_"));
      expect(answerEvents[0]).toEqual({ type: "answer_start" });
      expect(answerEvents.at(-1)).toEqual({ type: "answer_end", answer: "The answer is **x**." });
      const deltas = ofType(events, "answer_delta").map((e) => e.delta);
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join("")).toBe("The answer is **x**.");
      expect(events.at(-1)!.type).toBe("agent_end");
    });

    it("keeps a result of exactly 2,000 characters whole", async () => {
      const faux = fauxFor(mode, [r.call("big"), r.answer("draft"), "done"]);
      await run(faux, [big(2_000)], [answerSynthesis()]);
      const trace = textOf(faux.requests[2]!.context.messages[0]);
      expect(trace).toContain(`${"x".repeat(2_000)}\n`);
      expect(trace).not.toContain(TRUNCATION_MARK);
    });

    it("falls back to the loop's own last text when synthesis fails", async () => {
      const faux = fauxFor(mode, [
        r.call("big"),
        r.answer("loop draft"),
        { error: { kind: "invalid_request", message: "bad request" } },
      ]);
      const { events, result } = await run(faux, [big(10)], [answerSynthesis()]);
      expect(result).toMatchObject({ answer: "loop draft", stopReason: "stop" });
      expect(events.filter((e) => e.type.startsWith("answer_") || e.type === "error")).toEqual([
        { type: "answer_start" },
        { type: "error", source: "policy", message: "Answer synthesis failed: bad request" },
        { type: "answer_delta", delta: "loop draft" },
        {
          type: "answer_end",
          answer: "loop draft",
          error: "Answer synthesis failed: bad request",
        },
      ]);
    });

    it("voids a synthesis that failed mid-stream: a fresh answer_start, then deltas that add up to answer_end", async () => {
      const faux = fauxFor(mode, [
        r.call("big"),
        r.answer("loop draft"),
        { content: "The answer is half wri", error: { kind: "network", message: "connection reset" } },
      ]);
      const { events, result } = await run(faux, [big(10)], [answerSynthesis()]);
      expect(result).toMatchObject({ answer: "loop draft", stopReason: "stop" });
      const answerEvents = events.filter((e) => e.type.startsWith("answer_"));
      const lastStart = answerEvents.map((e) => e.type).lastIndexOf("answer_start");
      expect(lastStart).toBeGreaterThan(0);
      const deltas = answerEvents.slice(0, lastStart).filter((e) => e.type === "answer_delta");
      expect(deltas.map((e) => (e as { delta: string }).delta).join("")).toBe("The answer is half wri");
      const after = answerEvents.slice(lastStart + 1);
      expect(after).toEqual([
        { type: "answer_delta", delta: "loop draft" },
        { type: "answer_end", answer: "loop draft", error: "Answer synthesis failed: connection reset" },
      ]);
    });

    it("counts an empty synthesis as failed", async () => {
      const faux = fauxFor(mode, [r.call("big"), r.answer("loop draft"), "  "]);
      const { events } = await run(faux, [big(10)], [answerSynthesis()]);
      expect(ofType(events, "answer_end")).toEqual([
        { type: "answer_end", answer: "loop draft", error: "Answer synthesis failed: the answer was empty" },
      ]);
    });
  });
}

describe("answer synthesis", () => {
  it("makes no call when no tool ran, but still sends the answer events", async () => {
    const faux = fauxFor("native", ["just this"]);
    const { events, result } = await run(faux, [big(1)], [answerSynthesis()]);
    expect(faux.requests).toHaveLength(1);
    expect(result.answer).toBe("just this");
    expect(events.filter((e) => e.type.startsWith("answer_"))).toEqual([
      { type: "answer_start" },
      { type: "answer_delta", delta: "just this" },
      { type: "answer_end", answer: "just this" },
    ]);
  });

  it("does not synthesize a run that hit the iteration limit", async () => {
    const faux = fauxFor("native", [replies("native").call("big"), replies("native").call("big")]);
    const { events, result } = await run(
      faux,
      [big(1)],
      [iterationLimit({ maxIterations: 2 }), answerSynthesis()],
    );
    expect(result.stopReason).toBe("max_iterations");
    expect(faux.requests).toHaveLength(2);
    expect(events.some((e) => e.type.startsWith("answer_"))).toBe(false);
  });

  it("direct mode streams the loop's text and sends no answer events", async () => {
    const faux = fauxFor("native", ["streamed as written"]);
    const { events } = await run(faux, [big(1)], []);
    expect(ofType(events, "message_update").length).toBeGreaterThan(1);
    expect(events.some((e) => e.type.startsWith("answer_"))).toBe(false);
  });

  it("marks failed results in the trace", async () => {
    const failing: AgentTool<Record<string, never>> = {
      name: "bad",
      description: "fails",
      parameters: z.object({}),
      execute: () => ({ content: "no access", isError: true }),
    };
    const faux = fauxFor("native", [replies("native").call("bad"), "draft", "final"]);
    const { result } = await run(faux, [failing], [answerSynthesis()]);
    expect(textOf(faux.requests[2]!.context.messages[0])).toContain("1. bad {} (failed)\nResult:\nno access");
    expect((result.messages[2] as ToolResultMessage).isError).toBe(true);
  });
});
