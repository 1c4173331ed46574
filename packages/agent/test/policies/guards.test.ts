// Self-reflection, cycle detection and the completion checklist, in both tool modes.
import { fauxToolCall } from "@tern/ai/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentTool, reactPolicies } from "../../src/index.js";
import { completionCheck } from "../../src/policies/completion-check.js";
import { cycleDetection } from "../../src/policies/cycle-detection.js";
import { selfReflection } from "../../src/policies/reflection.js";
import { echoTool } from "../helpers.js";
import { afterLastReply, allText, countOf, fauxFor, injects, MODES, replies, run } from "./support.js";

const pair: AgentTool<{ a: number; b: number }> = {
  name: "pair",
  description: "Takes a and b",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => `pair ${a} ${b}`,
};

const REFLECTION = "[SELF-REFLECTION]";
const CYCLE = "[CYCLE WARNING]";
const CHECK = "[COMPLETION CHECK]";

// The variables the CLI maps onto these options: the library must not read them itself.
const CYCLE_ENV = "REACT_CYCLE_DETECTION_THRESHOLD";
const CHECK_ENV = "REACT_COMPLETION_CHECK_MIN_TOOLS";

afterEach(() => {
  delete process.env[CYCLE_ENV];
  delete process.env[CHECK_ENV];
});

for (const mode of MODES) {
  const r = replies(mode);

  describe(`self-reflection (${mode})`, () => {
    it("fires after the 6th real tool call, after its result, and not again before the 12th", async () => {
      const faux = fauxFor(mode);
      for (let i = 0; i < 7; i++) faux.push(r.call("echo", { text: `n${i}` }));
      faux.push(r.answer("done"));
      const { events } = await run(faux, [echoTool()], [selfReflection()]);
      expect(injects(events, "reflection")).toHaveLength(1);
      for (let k = 0; k < 6; k++) expect(allText(faux.requests[k]!)).not.toContain(REFLECTION);
      const tail = afterLastReply(faux.requests[6]!);
      expect(tail.indexOf("echo: n5")).toBeGreaterThanOrEqual(0);
      expect(tail.indexOf(REFLECTION)).toBeGreaterThan(tail.indexOf("echo: n5"));
      expect(tail).toContain('1. Are you still on course for the original goal: "What is the answer?"?');
      expect(tail).toContain("You have made 6 tool calls.");
      expect(countOf(allText(faux.requests[7]!), REFLECTION)).toBe(1);
    });

    it("honours a custom interval", async () => {
      const faux = fauxFor(mode, [
        r.call("echo", { text: "a" }),
        r.call("echo", { text: "b" }),
        r.answer("ok"),
      ]);
      const { events } = await run(faux, [echoTool()], [selfReflection({ every: 2 })]);
      expect(injects(events, "reflection")).toHaveLength(1);
      expect(afterLastReply(faux.requests[2]!)).toContain(REFLECTION);
    });
  });

  describe(`cycle detection (${mode})`, () => {
    it("warns on the 3rd identical call (key order does not matter), not before", async () => {
      const faux = fauxFor(mode, [
        r.call("pair", { a: 1, b: 2 }),
        r.call("pair", { a: 1, b: 3 }),
        r.call("pair", { b: 2, a: 1 }),
        r.call("pair", { a: 1, b: 2 }),
        r.answer("ok"),
      ]);
      const { events } = await run(faux, [pair], [cycleDetection()]);
      const warnings = injects(events, "cycle_warning");
      expect(warnings).toHaveLength(1);
      for (let k = 0; k < 4; k++) expect(allText(faux.requests[k]!)).not.toContain(CYCLE);
      const tail = afterLastReply(faux.requests[4]!);
      expect(tail.indexOf(CYCLE)).toBeGreaterThan(tail.indexOf("pair 1 2"));
      expect(warnings[0]!.content).toContain('- pair {"a":1,"b":2} (3 times)');
    });

    it("starts counting afresh in every run", async () => {
      const policy = cycleDetection();
      const faux = fauxFor(mode);
      for (let runIndex = 0; runIndex < 2; runIndex++) {
        faux.push(r.call("pair", { a: 1, b: 1 }), r.call("pair", { a: 1, b: 1 }), r.answer("ok"));
      }
      const first = await run(faux, [pair], [policy]);
      const second = await run(faux, [pair], [policy]);
      expect(injects(first.events, "cycle_warning")).toHaveLength(0);
      expect(injects(second.events, "cycle_warning")).toHaveLength(0);
    });

    it(`takes its threshold from options only (not ${CYCLE_ENV}), and ignores one out of range`, async () => {
      const low = cycleDetection({ threshold: 2 });
      const outOfRange = cycleDetection({ threshold: 1 });
      process.env[CYCLE_ENV] = "2";
      const fromEnv = cycleDetection();
      const script = () => [r.call("pair", { a: 5, b: 5 }), r.call("pair", { a: 5, b: 5 }), r.answer("ok")];
      const a = await run(fauxFor(mode, script()), [pair], [low]);
      const b = await run(fauxFor(mode, script()), [pair], [outOfRange]);
      const c = await run(fauxFor(mode, script()), [pair], [fromEnv]);
      expect(injects(a.events, "cycle_warning")).toHaveLength(1);
      expect(injects(b.events, "cycle_warning")).toHaveLength(0);
      expect(injects(c.events, "cycle_warning")).toHaveLength(0);
    });
  });

  describe(`completion checklist (${mode})`, () => {
    it("asks once after 3 tools, before the answer is accepted", async () => {
      const faux = fauxFor(mode, [
        r.call("echo", { text: "a" }),
        r.call("echo", { text: "b" }),
        r.call("echo", { text: "c" }),
        r.answer("draft"),
        r.answer("final"),
      ]);
      const { events, result } = await run(faux, [echoTool()], [completionCheck()]);
      expect(injects(events, "completion_check")).toHaveLength(1);
      expect(result).toMatchObject({ answer: "final", iterations: 5, stopReason: "stop" });
      for (let k = 0; k < 4; k++) expect(allText(faux.requests[k]!)).not.toContain(CHECK);
      const tail = afterLastReply(faux.requests[4]!);
      expect(tail.startsWith(CHECK)).toBe(true);
      expect(tail).toContain('1. Does it fully answer the question: "What is the answer?"?');
    });

    it("does not ask after fewer tools, and not twice when the model resumes its tools", async () => {
      const few = fauxFor(mode, [
        r.call("echo", { text: "a" }),
        r.call("echo", { text: "b" }),
        r.answer("x"),
      ]);
      const a = await run(few, [echoTool()], [completionCheck()]);
      expect(injects(a.events, "completion_check")).toHaveLength(0);
      expect(a.result.iterations).toBe(3);

      const resume = fauxFor(mode, [
        r.call("echo", { text: "a" }),
        r.call("echo", { text: "b" }),
        r.call("echo", { text: "c" }),
        r.answer("draft"),
        r.call("echo", { text: "verify" }),
        r.answer("verified"),
      ]);
      const b = await run(resume, [echoTool()], [completionCheck()]);
      expect(injects(b.events, "completion_check")).toHaveLength(1);
      expect(b.result).toMatchObject({ answer: "verified", iterations: 6 });
    });

    it(`can be turned off, and takes minTools from options only (not ${CHECK_ENV})`, async () => {
      const off = fauxFor(mode);
      for (const t of ["a", "b", "c"]) off.push(r.call("echo", { text: t }));
      off.push(r.answer("done"));
      const a = await run(off, [echoTool()], reactPolicies({ completionCheck: false }).slice(1));
      expect(injects(a.events, "completion_check")).toHaveLength(0);

      const one = fauxFor(mode, [r.call("echo", { text: "a" }), r.answer("draft"), r.answer("final")]);
      const b = await run(one, [echoTool()], [completionCheck({ minTools: 1 })]);
      expect(injects(b.events, "completion_check")).toHaveLength(1);

      process.env[CHECK_ENV] = "1";
      const ignored = fauxFor(mode, [r.call("echo", { text: "a" }), r.answer("draft")]);
      const c = await run(ignored, [echoTool()], [completionCheck()]);
      expect(injects(c.events, "completion_check")).toHaveLength(0);
    });
  });
}

it("puts the reflection after all results of a native batch that crosses the mark", async () => {
  const faux = fauxFor("native", [
    { content: [1, 2, 3, 4].map((i) => fauxToolCall("echo", { text: `p${i}` })) },
    { content: [5, 6, 7].map((i) => fauxToolCall("echo", { text: `p${i}` })) },
    "ok",
  ]);
  const { events } = await run(faux, [echoTool()], [selfReflection()]);
  expect(injects(events, "reflection")).toHaveLength(1);
  const messages = faux.requests[2]!.context.messages;
  expect(messages.slice(-4).map((m) => m.role)).toEqual(["toolResult", "toolResult", "toolResult", "user"]);
  expect(afterLastReply(faux.requests[2]!)).toContain("You have made 7 tool calls.");
});

it("does not count a JSON reformat as a tool call", async () => {
  const r = replies("json");
  const faux = fauxFor("json");
  for (let i = 0; i < 5; i++) faux.push(r.call("echo", { text: `${i}` }));
  faux.push("not json at all", r.call("echo", { text: "5" }), r.answer("done"));
  const { events } = await run(faux, [echoTool()], [selfReflection()]);
  expect(injects(events).map((e) => e.kind)).toEqual(["reformat", "reflection"]);
  expect(afterLastReply(faux.requests[7]!)).toContain(REFLECTION);
});
