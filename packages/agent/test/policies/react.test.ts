// The standard set end to end, through the Agent's `react` option, in both tool modes.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type AgentEvent, type AgentTool, reactPolicies } from "../../src/index.js";
import { REQUEST_TOOLS_TOOL } from "../../src/policies/tool-names.js";
import { fauxFor, injects, MODES, ofType, replies } from "./support.js";

function lookup(count: number): AgentTool<{ q: string }>[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `lookup${i + 1}`,
    description: `Looks things up in source ${i + 1}`,
    parameters: z.object({ q: z.string() }),
    execute: ({ q }) => `source ${i + 1} says ${q} = ${i + 1}`,
  }));
}

for (const mode of MODES) {
  const r = replies(mode);

  it(`runs selection, tools, checklist and synthesis together (${mode})`, async () => {
    const faux = fauxFor(mode, [
      mode === "native"
        ? {
            content: [
              {
                type: "toolCall",
                id: "s",
                name: "select_tools",
                arguments: { tools: ["lookup2", "lookup5"] },
              },
            ],
          }
        : '{"tools":["lookup2","lookup5"]}',
      r.call("lookup2", { q: "a" }),
      r.call("lookup5", { q: "b" }),
      r.call("lookup2", { q: "c" }),
      r.answer("draft"),
      r.answer("checked draft"),
      "**a** is 2.",
    ]);
    const agent = new Agent({
      model: faux.model,
      tools: lookup(13),
      react: { answerMode: "synthesize", autopilot: false },
    });
    const events: AgentEvent[] = [];
    agent.subscribe((e) => void events.push(e));
    const result = await agent.prompt("What is a?");
    expect(result).toMatchObject({ answer: "**a** is 2.", stopReason: "stop", iterations: 5 });
    expect(ofType(events, "model_call_end").map((e) => e.purpose)).toEqual([
      "tool_selection",
      "turn",
      "turn",
      "turn",
      "turn",
      "turn",
      "synthesis",
    ]);
    expect(injects(events).map((e) => e.kind)).toEqual(["completion_check"]);
    expect(agent.state.usage.total.input).toBe(
      ofType(events, "model_call_end").reduce((sum, e) => sum + e.usage.input, 0),
    );
    // The Agent keeps all its tools: the selection is a view of one run.
    expect(agent.state.tools.map((t) => t.name)).not.toContain(REQUEST_TOOLS_TOOL);
    expect(agent.state.tools).toHaveLength(13);
  });
}

describe("reactPolicies", () => {
  it("builds the set in its working order, leaving out what is turned off", () => {
    expect(reactPolicies().map((p) => p.name)).toEqual([
      "tool_mode",
      "iteration_limit",
      "interrupts",
      "tool_selection",
      "self_reflection",
      "cycle_detection",
      "completion_check",
    ]);
    expect(
      reactPolicies({
        answerMode: "synthesize",
        autopilot: true,
        toolSelection: false,
        reflection: false,
        cycleDetection: false,
        completionCheck: false,
        interrupts: false,
      }).map((p) => p.name),
    ).toEqual(["tool_mode", "iteration_limit", "autopilot", "answer_synthesis"]);
  });

  it("stops at 50 iterations by default", async () => {
    const r = replies("native");
    const faux = fauxFor("native");
    for (let i = 0; i < 50; i++) faux.push(r.call("lookup1", { q: `${i}` }));
    const agent = new Agent({
      model: faux.model,
      tools: lookup(1),
      react: { cycleDetection: false, reflection: false },
    });
    const result = await agent.prompt("loop forever");
    expect(result).toMatchObject({ stopReason: "max_iterations", iterations: 50 });
    expect(result.answer).toBe(
      "I stopped after 50 steps without reaching a final answer. Tools run:\n- lookup1: 50 calls, all succeeded",
    );
    expect(faux.pending).toBe(0);
  });
});
