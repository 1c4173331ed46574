import { describe, expect, it } from "vitest";
import { Agent, type AgentMessage } from "../../src/index.js";
import { completionCheck } from "../../src/policies/completion-check.js";
import { INTERRUPT_TAG, interrupts } from "../../src/policies/interrupts.js";
import { echoTool, sleep, textOf, user } from "../helpers.js";
import { afterLastReply, fauxFor, injects, MODES, replies, run } from "./support.js";

for (const mode of MODES) {
  const r = replies(mode);

  describe(`interrupts (${mode})`, () => {
    it("merges what arrived during a tool into one pinned message after its result", async () => {
      const queue: AgentMessage[] = [];
      const faux = fauxFor(mode, [r.call("echo", { text: "work" }), r.answer("adjusted")]);
      const { events, result } = await run(faux, [echoTool()], [interrupts()], {
        config: { getSteeringMessages: () => queue.splice(0) },
        onEvent: (event) => {
          if (event.type === "tool_execution_start") queue.push(user("stop that"), user("use plan B"));
        },
      });
      const found = injects(events);
      expect(found.map((e) => e.kind)).toEqual(["interrupt"]);
      const expected = `${INTERRUPT_TAG} The user sent 2 messages while you were working:\n1. stop that\n2. use plan B\nTake it into account before you continue: adjust your plan, or answer it if it asks something.`;
      expect(found[0]!.content).toBe(expected);
      expect(result.messages.filter((m) => (m as { role: string }).role === "user").at(-1)).toMatchObject({
        pinned: true,
        content: expected,
      });
      const tail = afterLastReply(faux.requests[1]!);
      expect(tail.indexOf(INTERRUPT_TAG)).toBeGreaterThan(tail.indexOf("echo: work"));
      expect(result.answer).toBe("adjusted");
    });

    it("holds back a pending final answer and goes on", async () => {
      const queue: AgentMessage[] = [];
      let sent = false;
      const faux = fauxFor(mode, [
        r.answer("premature"),
        r.answer("with the interrupt in mind"),
        r.answer("checked"),
      ]);
      const { events, result } = await run(
        faux,
        [echoTool()],
        [interrupts(), completionCheck({ minTools: 0 })],
        {
          config: { getSteeringMessages: () => queue.splice(0) },
          onEvent: (event) => {
            if (
              event.type === "message_end" &&
              (event.message as { role: string }).role === "assistant" &&
              !sent
            ) {
              sent = true;
              queue.push(user("also in French"));
            }
          },
        },
      );
      expect(result).toMatchObject({ answer: "checked", iterations: 3 });
      // The interrupt held the first answer back; the checklist only judged the second one.
      expect(injects(events).map((e) => e.kind)).toEqual(["interrupt", "completion_check"]);
      const messages = faux.requests[1]!.context.messages;
      expect(textOf(messages.at(-1))).toContain("also in French");
      expect(textOf(messages.at(-1))).not.toContain("[COMPLETION CHECK]");
      expect(messages.at(-2)!.role).toBe("assistant");
      expect(afterLastReply(faux.requests[2]!).startsWith("[COMPLETION CHECK]")).toBe(true);
    });
  });
}

it("without the policy, steering messages reach the model one by one, unchanged", async () => {
  const queue: AgentMessage[] = [];
  const r = replies("native");
  const faux = fauxFor("native", [r.call("echo", { text: "w" }), "ok"]);
  const { events } = await run(faux, [echoTool()], [], {
    config: { getSteeringMessages: () => queue.splice(0) },
    onEvent: (event) => {
      if (event.type === "tool_execution_start") queue.push(user("a"), user("b"));
    },
  });
  expect(injects(events).map((e) => `${e.kind}:${e.content}`)).toEqual(["steering:a", "steering:b"]);
});

it("Agent.interrupt() uses the steering queue, shaped by the react policies", async () => {
  const faux = fauxFor("native");
  const gate = { open: () => {} };
  const slow = {
    ...echoTool(),
    name: "slow",
    execute: async () => {
      gate.open();
      await sleep(10);
      return "slow done";
    },
  };
  faux.push(replies("native").call("slow", { text: "x" }), "final");
  const agent = new Agent({ model: faux.model, tools: [slow], react: { completionCheck: false } });
  const started = new Promise<void>((resolve) => {
    gate.open = resolve;
  });
  const running = agent.prompt("go");
  await started;
  agent.interrupt("hurry up");
  const result = await running;
  expect(result.answer).toBe("final");
  expect(textOf(faux.requests[1]!.context.messages.at(-1))).toContain(
    `${INTERRUPT_TAG} The user sent a message`,
  );
  expect(
    agent.state.messages.some((m) => (m as { pinned?: boolean }).pinned && textOf(m).includes("hurry up")),
  ).toBe(true);
});
