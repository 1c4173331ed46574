import { createFaux, type FauxStep, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentTool, AnyAgentTool } from "../../src/index.js";
import { REQUEST_TOOLS_TOOL } from "../../src/policies/tool-names.js";
import { toolSelection } from "../../src/policies/tool-selection.js";
import { textOf } from "../helpers.js";
import { fauxFor, MODES, type Mode, ofType, replies, run } from "./support.js";

function numbered(count: number, ran: string[] = []): AgentTool<{ x?: number }>[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `t${i + 1}`,
    description: `Tool number ${i + 1} does job ${i + 1}`,
    parameters: z.object({ x: z.number().optional() }),
    execute: () => {
      ran.push(`t${i + 1}`);
      return `ran t${i + 1}`;
    },
  }));
}

/** The selection call's answer, as each mode's model gives it (forced tool call, or JSON text). */
function select(mode: Mode, names: unknown): FauxStep {
  if (mode === "native") return { content: [fauxToolCall("select_tools", { tools: names })] };
  return JSON.stringify({ tools: names });
}

/** The names a loop turn offered: native tools, or the "## name" headings of the JSON catalog. */
function offered(
  mode: Mode,
  request: { context: { tools?: { name: string }[]; systemPrompt?: string } },
): string[] {
  if (mode === "native") return (request.context.tools ?? []).map((t) => t.name);
  return [...(request.context.systemPrompt ?? "").matchAll(/^## (\S+)$/gm)].map((m) => m[1]!);
}

for (const mode of MODES) {
  const r = replies(mode);

  describe(`tool selection (${mode})`, () => {
    it("does not run with 12 tools", async () => {
      const faux = fauxFor(mode, [r.answer("ok")]);
      const { events } = await run(faux, numbered(12), [toolSelection()]);
      expect(ofType(events, "phase")).toHaveLength(0);
      expect(faux.requests).toHaveLength(1);
      expect(offered(mode, faux.requests[0]!)).toHaveLength(12);
    });

    it("picks tools with 13, visibly, and its usage counts in the totals", async () => {
      const faux = fauxFor(mode, [select(mode, ["t3", "t7"]), r.answer("ok")]);
      const { events, result } = await run(faux, numbered(13), [toolSelection()]);
      expect(ofType(events, "phase")).toEqual([
        { type: "phase", phase: "selecting_tools", detail: { totalTools: 13 } },
      ]);
      const ends = ofType(events, "model_call_end");
      expect(ends.map((e) => e.purpose)).toEqual(["tool_selection", "turn"]);
      expect(ofType(events, "model_call_start").map((e) => e.purpose)).toEqual(["tool_selection", "turn"]);
      expect(ends[0]!.usage.input).toBeGreaterThan(0);
      expect(result.usage.input).toBe(ends[0]!.usage.input + ends[1]!.usage.input);
      expect(result.iterations).toBe(1);
      expect(offered(mode, faux.requests[1]!)).toEqual(["t3", "t7", REQUEST_TOOLS_TOOL]);
      // The selection call saw the task and the compact catalog.
      const prompt = textOf(faux.requests[0]!.context.messages[0]);
      expect(prompt).toContain("Task:\nWhat is the answer?");
      expect(prompt).toContain("- t13: Tool number 13 does job 13");
    });

    for (const [label, answer] of [
      ["garbage", "no idea, sorry"],
      ["an empty list", []],
      ["only unknown names", ["nope", "zzz"]],
    ] as const) {
      it(`keeps every tool on ${label}`, async () => {
        const garbage = typeof answer === "string";
        // Garbage goes through every level of the structured call: one answer per call, reformats included.
        const faux = createFaux({ abilities: { toolCall: mode === "native", jsonMode: false } });
        if (garbage) faux.push(...Array.from({ length: mode === "native" ? 3 : 2 }, () => answer));
        else faux.push(select(mode, answer));
        faux.push(r.answer("ok"));
        const { events } = await run(faux, numbered(13), [toolSelection()]);
        const turn = faux.requests.at(-1)!;
        expect(offered(mode, turn)).toEqual(numbered(13).map((t) => t.name));
        expect(ofType(events, "model_call_end").filter((e) => e.purpose === "tool_selection").length).toBe(
          faux.requests.length - 1,
        );
      });
    }

    it("keeps every tool when the selection call fails", async () => {
      const faux = fauxFor(mode, [{ error: { kind: "auth", message: "bad key" } }, r.answer("ok")]);
      const { events, result } = await run(faux, numbered(13), [toolSelection()]);
      expect(offered(mode, faux.requests[1]!)).toHaveLength(13);
      expect(ofType(events, "model_call_end")[0]).toMatchObject({
        purpose: "tool_selection",
        stopReason: "error",
        errorMessage: "bad key",
      });
      expect(result.stopReason).toBe("stop");
    });

    it("keeps at most 6, plus pinned tools", async () => {
      const many = ["t1", "t2", "t3", "t4", "t5", "t6", "t8", "t9", "t10"];
      const faux = fauxFor(mode, [select(mode, many), r.answer("ok")]);
      await run(faux, numbered(14), [toolSelection({ pinnedTools: ["t14", "t2"] })]);
      // t2 is pinned, so it does not take one of the 6 places (t1 t3 t4 t5 t6 t8); t14 is kept though not chosen.
      expect(offered(mode, faux.requests[1]!)).toEqual([
        "t1",
        "t2",
        "t3",
        "t4",
        "t5",
        "t6",
        "t8",
        "t14",
        REQUEST_TOOLS_TOOL,
      ]);
    });

    it("loads hidden tools with request_tools", async () => {
      const ran: string[] = [];
      const faux = fauxFor(mode, [
        select(mode, ["t1"]),
        r.call("t9"),
        r.call(REQUEST_TOOLS_TOOL, { names: ["t9", "bogus"] }),
        r.call("t9"),
        r.answer("done"),
      ]);
      const { result } = await run(faux, numbered(13, ran), [toolSelection()]);
      expect(result.answer).toBe("done");
      // Hidden tools cannot run until loaded.
      expect(textOf(faux.requests[2]!.context.messages.at(-1))).toContain('Tool "t9" not found');
      expect(offered(mode, faux.requests[2]!)).toEqual(["t1", REQUEST_TOOLS_TOOL]);
      expect(textOf(faux.requests[3]!.context.messages.at(-1))).toContain(
        "Loaded: t9. You can call them from your next step. Unknown, not loaded: bogus.",
      );
      expect(offered(mode, faux.requests[3]!)).toEqual(["t1", "t9", REQUEST_TOOLS_TOOL]);
      expect(ran).toEqual(["t9"]);
    });
  });
}

describe("tool selection with tools that join the run later (MCP servers)", () => {
  /** A prepareNextTurn that adds `extra` to the run's tools at turn `at`. */
  function joinAt(at: number, extra: AgentTool<{ x?: number }>[]) {
    return ({ turn, tools }: { turn: number; tools: readonly AnyAgentTool[] }) =>
      turn === at ? { tools: [...tools, ...extra] } : undefined;
  }
  function named(prefix: string, count: number, ran: string[] = []): AgentTool<{ x?: number }>[] {
    return numbered(count).map((tool) => ({
      ...tool,
      name: `${prefix}${tool.name}`,
      execute: () => {
        ran.push(`${prefix}${tool.name}`);
        return "ran";
      },
    }));
  }

  it("chooses among the tools that joined before the first model call", async () => {
    const faux = fauxFor("native", [select("native", ["mcp_t2"]), "ok"]);
    const { events } = await run(faux, numbered(3), [toolSelection()], {
      config: { prepareNextTurn: joinAt(1, named("mcp_", 12)) },
    });
    expect(ofType(events, "phase")).toEqual([
      { type: "phase", phase: "selecting_tools", detail: { totalTools: 15 } },
    ]);
    expect(textOf(faux.requests[0]!.context.messages[0])).toContain("- mcp_t12: Tool number 12");
    expect(offered("native", faux.requests[1]!)).toEqual(["mcp_t2", REQUEST_TOOLS_TOOL]);
  });

  it("offers tools that arrive after a selection through request_tools, which loads them", async () => {
    const ran: string[] = [];
    const faux = fauxFor("native", [
      select("native", ["t1"]),
      { content: [fauxToolCall("t1", {})] },
      { content: [fauxToolCall(REQUEST_TOOLS_TOOL, { names: ["late_t1"] })] },
      { content: [fauxToolCall("late_t1", {})] },
      "done",
    ]);
    const { result } = await run(faux, numbered(13), [toolSelection()], {
      config: { prepareNextTurn: joinAt(2, named("late_", 2, ran)) },
    });
    expect(result.answer).toBe("done");
    // Turn 2: the late tools are not offered, but request_tools names them.
    expect(offered("native", faux.requests[2]!)).toEqual(["t1", REQUEST_TOOLS_TOOL]);
    const request = faux.requests[2]!.context.tools!.find((t) => t.name === REQUEST_TOOLS_TOOL)!;
    expect(request.description).toContain("late_t1, late_t2");
    expect(offered("native", faux.requests[3]!)).toEqual(["t1", "late_t1", REQUEST_TOOLS_TOOL]);
    expect(ran).toEqual(["late_t1"]);
  });

  it("without a selection, keeps the first turn's tools and makes later ones loadable past the threshold", async () => {
    const faux = fauxFor("native", [{ content: [fauxToolCall("t1", {})] }, "done"]);
    await run(faux, numbered(5), [toolSelection()], {
      config: { prepareNextTurn: joinAt(2, named("late_", 10)) },
    });
    expect(faux.requests).toHaveLength(2); // no selection call: 5 tools at the first turn
    expect(offered("native", faux.requests[1]!)).toEqual(["t1", "t2", "t3", "t4", "t5", REQUEST_TOOLS_TOOL]);
  });

  it("offers late tools directly while the run stays within the threshold", async () => {
    const faux = fauxFor("native", [{ content: [fauxToolCall("t1", {})] }, "done"]);
    await run(faux, numbered(5), [toolSelection()], {
      config: { prepareNextTurn: joinAt(2, named("late_", 2)) },
    });
    expect(offered("native", faux.requests[1]!)).toEqual([
      "t1",
      "t2",
      "t3",
      "t4",
      "t5",
      "late_t1",
      "late_t2",
    ]);
  });
});

it("cuts catalog lines to about 80 characters", async () => {
  const tools = numbered(13);
  tools[0]!.description = `Searches ${"a very long description ".repeat(20)}`;
  const faux = fauxFor("native", [select("native", ["t2"]), "ok"]);
  await run(faux, tools, [toolSelection()]);
  const line = textOf(faux.requests[0]!.context.messages[0])
    .split("\n")
    .find((l) => l.startsWith("- t1:"))!;
  expect(line.length).toBe(82); // "- " plus 80
  expect(line.endsWith("…")).toBe(true);
});
