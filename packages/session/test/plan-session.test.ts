// A plan run recorded in a session: the transcript holds the prompt and the answer, the event log
// holds the plan, and an aborted plan resumes from the log with its finished steps kept.
import { type AgentEvent, type AgentMessage, type AgentTool, planCheckpoint } from "@tern/agent";
import type { Message } from "@tern/ai";
import { createFaux, textReply, toolReply } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { createSessionAgent } from "../src/persist-agent.js";
import { resumeSession } from "../src/resume.js";
import { storePerTest } from "./support/store-per-test.js";

const fx = storePerTest();

const roles = (messages: readonly AgentMessage[]) => messages.map((m) => (m as Message).role);

const planStep = (id: string, dependencies: string[]) => ({
  id,
  task: `do ${id}`,
  dependencies,
  tool_hint: null,
  model_hint: null,
});
const planned = toolReply([
  { name: "make_plan", args: { steps: [planStep("a", []), planStep("b", ["a"])] } },
]);
const accepted = toolReply([
  {
    name: "analyze_results",
    args: { achieved: true, confidence: 1, reasoning: "judged", final_answer: null },
  },
]);

/** A tool whose call stops the run (as a user would mid-step) and ends only by that abort. */
function abortingTool(abort: () => void): AgentTool<Record<string, never>> {
  return {
    name: "wait",
    description: "Waits until aborted",
    parameters: { type: "object", properties: {} },
    execute: (_args, { signal }) =>
      new Promise((resolve) => {
        signal.addEventListener("abort", () => resolve({ content: "stopped", isError: true }), {
          once: true,
        });
        abort();
      }),
  };
}

describe("a plan in a session", () => {
  it("records the plan, resumes an aborted plan keeping finished steps, and replays it", async () => {
    // One model in the order a plan asks: the planner, step a, step b (after a); on resume b again,
    // the analysis and the synthesis.
    const faux = createFaux();
    const session = await fx.store.create({ cwd: "/p" });
    fx.open.push(session);
    let agent: ReturnType<typeof createSessionAgent>["agent"] | undefined;
    const { agent: first } = createSessionAgent(session, {
      model: faux.model,
      tools: [abortingTool(() => agent?.abort())],
      strategy: "plan",
    });
    agent = first;
    faux.push(planned, textReply("A found 1"), toolReply([{ name: "wait" }]));
    const aborted = await first.prompt("the goal");
    expect(aborted.stopReason).toBe("aborted");
    await session.close();
    fx.open.pop();

    const resumed = await resumeSession(fx.store, session.id);
    fx.open.push(resumed.session);
    expect(roles(resumed.context.messages)).toEqual(["user"]);
    const events = resumed.session.storedEvents().map((e) => e.event as AgentEvent);
    const types = events.map((e) => e.type);
    expect(types).toContain("plan_start");
    expect(types.filter((t) => t === "plan_step_end")).toHaveLength(2);
    const checkpoint = planCheckpoint(events);
    expect(checkpoint?.current?.done.map((o) => o.id)).toEqual(["a"]);

    const { agent: second } = createSessionAgent(resumed.session, {
      model: faux.model,
      strategy: "plan",
    });
    faux.push(textReply("B found 2"), accepted, textReply("1 and 2"));
    const done = await second.resumePlan(checkpoint!);
    expect(done.answer).toBe("1 and 2");
    // The resumed plan asked for step b, the analysis and the answer: step a was not run again.
    const resumedAsks = faux.requests.slice(3);
    expect(resumedAsks).toHaveLength(3);
    expect(JSON.stringify(resumedAsks[0]!.context.messages[0]!.content)).toContain(
      'Your task (step \\"b\\")',
    );
    expect(roles(resumed.session.buildContext().messages)).toEqual(["user", "assistant"]);
    const after = resumed.session.storedEvents().map((e) => e.event as AgentEvent);
    expect(planCheckpoint(after)).toBeUndefined();
  });
});
