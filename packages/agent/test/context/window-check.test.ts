// The context-window check in the loop: a prompt larger than the model's window is refused with
// both numbers before anything is sent; one that fits, an unknown window, and later turns pass.
// Plan mode asks the same check before its planner call.
import { createFaux } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { contextGuard, contextWindowCheck, PROMPT_TOO_LARGE } from "../../src/context/index.js";
import { agentLoop } from "../../src/loop.js";
import { runPlan } from "../../src/plan/run-plan.js";
import type { LoopPolicy } from "../../src/policy.js";
import { recorder, user } from "./support.js";

/** 745k estimated tokens: what issue 29's 3 MB prompt came to. */
const HUGE = "word ".repeat(596_000);

async function run(prompt: string, contextWindow: number, policies: LoopPolicy[]) {
  const faux = createFaux({ contextWindow, replies: ["done"] });
  const log = recorder();
  const stream = agentLoop([user(prompt)], { messages: [] }, { model: faux.model, policies });
  for await (const event of stream) log.emit(event);
  return { faux, events: log.events, result: await stream.result() };
}

describe("contextWindowCheck", () => {
  it("refuses a prompt larger than the window, naming both numbers, and sends nothing", async () => {
    // Before the context guard too: it must not try to summarise the prompt with the model.
    const { faux, events, result } = await run(HUGE, 32_768, [contextWindowCheck(), contextGuard()]);
    expect(result.stopReason).toBe("error");
    expect(result.errorKind).toBe(PROMPT_TOO_LARGE);
    expect(result.errorMessage).toBe(
      `The prompt is too large for faux/${faux.model.id}: about 745000 tokens (estimated), the model's context window is 32768 tokens. Nothing was sent.`,
    );
    expect(faux.requests).toHaveLength(0);
    expect(events.filter((e) => e.type === "model_call_start")).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ type: "agent_end", errorKind: PROMPT_TOO_LARGE });
  });

  it("lets a prompt that fits through", async () => {
    const { faux, result } = await run("Fix the parser", 32_768, [contextWindowCheck()]);
    expect(result).toMatchObject({ stopReason: "stop", answer: "done" });
    expect(result.errorKind).toBeUndefined();
    expect(faux.requests).toHaveLength(1);
  });

  it("does not check a model whose window the host does not know", async () => {
    const { faux, result } = await run(HUGE, 32_768, [contextWindowCheck({ windowOf: () => undefined })]);
    expect(result.stopReason).toBe("stop");
    expect(faux.requests).toHaveLength(1);
  });

  it("uses the host's window when it names one", async () => {
    const { faux, result } = await run("x".repeat(400), 128_000, [
      contextWindowCheck({ windowOf: () => 99 }),
    ]);
    expect(result.errorMessage).toContain(
      "about 100 tokens (estimated), the model's context window is 99 tokens",
    );
    expect(faux.requests).toHaveLength(0);
  });

  it("refuses a plan's goal before the planner is asked", async () => {
    const faux = createFaux({ contextWindow: 32_768, replies: ["never asked"] });
    const log = recorder();
    const result = await runPlan(
      [user(HUGE)],
      { model: faux.model, policies: [contextWindowCheck()] },
      log.emit,
    );
    expect(result).toMatchObject({ stopReason: "error", errorKind: PROMPT_TOO_LARGE });
    expect(result.errorMessage).toContain(
      "about 745000 tokens (estimated), the model's context window is 32768 tokens",
    );
    expect(faux.requests).toHaveLength(0);
    expect(log.events.at(-1)).toMatchObject({ type: "agent_end", errorKind: PROMPT_TOO_LARGE });
  });
});
