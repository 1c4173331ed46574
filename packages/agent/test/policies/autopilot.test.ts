import { describe, expect, it } from "vitest";
import { autopilot, NUDGE_TEXT } from "../../src/policies/autopilot.js";
import { TASK_COMPLETE_TOOL } from "../../src/policies/tool-names.js";
import { echoTool } from "../helpers.js";
import { afterLastReply, allText, fauxFor, injects, MODES, ofType, replies, run } from "./support.js";

for (const mode of MODES) {
  const r = replies(mode);

  describe(`autopilot (${mode})`, () => {
    it("ends at task_complete: the event carries the summary and agent_end follows", async () => {
      const faux = fauxFor(mode, [
        r.call("echo", { text: "w" }),
        r.call(TASK_COMPLETE_TOOL, { summary: "Echoed w." }),
      ]);
      const { events, result } = await run(faux, [echoTool()], [autopilot()]);
      expect(injects(events)).toHaveLength(0);
      expect(ofType(events, "task_complete")).toEqual([{ type: "task_complete", summary: "Echoed w." }]);
      const types = events.map((e) => e.type);
      expect(types.indexOf("task_complete")).toBeLessThan(types.indexOf("agent_end"));
      expect(types.at(-1)).toBe("agent_end");
      expect(result).toMatchObject({ stopReason: "terminated", answer: "Echoed w.", iterations: 2 });
      // The tool is offered to the model in either mode.
      if (mode === "native")
        expect(faux.requests[0]!.context.tools!.map((t) => t.name)).toContain(TASK_COMPLETE_TOOL);
      else expect(faux.requests[0]!.context.systemPrompt).toContain(`## ${TASK_COMPLETE_TOOL}\n`);
    });

    it("nudges a run that would end without task_complete, then lets it finish", async () => {
      const faux = fauxFor(mode, [
        r.answer("I will do it later."),
        r.call(TASK_COMPLETE_TOOL, { summary: "Done now." }),
      ]);
      const { events, result } = await run(faux, [echoTool()], [autopilot()]);
      expect(injects(events).map((e) => [e.kind, e.content])).toEqual([["nudge", NUDGE_TEXT]]);
      expect(afterLastReply(faux.requests[1]!)).toBe(NUDGE_TEXT);
      expect(ofType(events, "task_complete")).toEqual([{ type: "task_complete", summary: "Done now." }]);
      expect(result).toMatchObject({ stopReason: "terminated", answer: "Done now.", iterations: 2 });
    });

    it("nudges at most maxNudges times, then accepts the answer", async () => {
      const faux = fauxFor(mode, [r.answer("a1"), r.answer("a2"), r.answer("a3"), r.answer("a4")]);
      const { events, result } = await run(faux, [echoTool()], [autopilot()]);
      expect(injects(events, "nudge")).toHaveLength(3);
      expect(ofType(events, "task_complete")).toHaveLength(0);
      expect(result).toMatchObject({ stopReason: "stop", answer: "a4", iterations: 4 });
      expect(events.at(-1)!.type).toBe("agent_end");

      const once = fauxFor(mode, [r.answer("b1"), r.answer("b2")]);
      const second = await run(once, [echoTool()], [autopilot({ maxNudges: 1 })]);
      expect(injects(second.events, "nudge")).toHaveLength(1);
      expect(second.result.answer).toBe("b2");
    });

    it("answers with the summary, not the text written next to task_complete", async () => {
      const faux = fauxFor(mode);
      if (mode === "native") {
        faux.push({
          content: [
            { type: "text", text: "All finished." },
            { type: "toolCall", id: "tc", name: TASK_COMPLETE_TOOL, arguments: { summary: "s" } },
          ],
        });
      } else {
        faux.push(
          JSON.stringify({
            type: "tool_call",
            reasoning: "All finished.",
            tool_name: TASK_COMPLETE_TOOL,
            tool_args: { summary: "s" },
          }),
        );
      }
      const { result } = await run(faux, [echoTool()], [autopilot()]);
      expect(result.answer).toBe("s");
      expect(allText(faux.requests[0]!)).not.toContain("[AUTOPILOT]");
    });
  });
}

it("goes on when task_complete shares its batch with another tool, and keeps a later answer", async () => {
  const faux = fauxFor("native", [
    {
      content: [
        { type: "toolCall", id: "tc", name: TASK_COMPLETE_TOOL, arguments: { summary: "s" } },
        { type: "toolCall", id: "te", name: "echo", arguments: { text: "x" } },
      ],
    },
    "Final words.",
  ]);
  const { events, result } = await run(faux, [echoTool()], [autopilot()]);
  expect(ofType(events, "task_complete")).toHaveLength(1);
  expect(injects(events)).toHaveLength(0);
  expect(result).toMatchObject({ stopReason: "stop", answer: "Final words.", iterations: 2 });
});
