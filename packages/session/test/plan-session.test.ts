// A plan run recorded in a session: the transcript holds the prompt and the answer, the event log
// holds the plan, and an aborted plan resumes from the log with its finished steps kept.
import { type AgentEvent, type AgentMessage, planCheckpoint } from "@tern/agent";
import type { Message } from "@tern/ai";
import { describe, expect, it } from "vitest";
import { analysisReply, call, cast, plan, planReply, waitTool } from "../../agent/test/plan/support.js";
import { createSessionAgent } from "../src/persist-agent.js";
import { resumeSession } from "../src/resume.js";
import { storePerTest } from "./support/store-per-test.js";

const fx = storePerTest();

const roles = (messages: readonly AgentMessage[]) => messages.map((m) => (m as Message).role);

describe("a plan in a session", () => {
  it("records the plan, resumes an aborted plan keeping finished steps, and replays it", async () => {
    const actors = cast();
    const session = await fx.store.create({ cwd: "/p" });
    fx.open.push(session);
    let agent: ReturnType<typeof createSessionAgent>["agent"] | undefined;
    const { agent: first } = createSessionAgent(session, {
      model: actors.model,
      streamFn: actors.streamFn,
      tools: [waitTool(() => agent?.abort())],
      strategy: "plan",
    });
    agent = first;
    actors.planner.push(planReply(plan(["a", []], ["b", ["a"]])));
    actors.step("a").push("A found 1");
    actors.step("b").push(call("wait"));
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
      model: actors.model,
      streamFn: actors.streamFn,
      strategy: "plan",
    });
    actors.step("b").push("B found 2");
    actors.analyzer.push(analysisReply(true, 1));
    actors.synth.push("1 and 2");
    const done = await second.resumePlan(checkpoint!);
    expect(done.answer).toBe("1 and 2");
    expect(actors.step("a").requests).toHaveLength(1);
    expect(roles(resumed.session.buildContext().messages)).toEqual(["user", "assistant"]);
    const after = resumed.session.storedEvents().map((e) => e.event as AgentEvent);
    expect(planCheckpoint(after)).toBeUndefined();
  });
});
