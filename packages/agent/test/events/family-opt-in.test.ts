// A consumer that knows only the loop's core events compiles and works without naming any feature
// family: its switch over `CoreAgentEvent` is exhaustive (the `never` check fails to compile when
// a core variant is missing) and `isCoreEvent` lets it skip the rest. A consumer that wants a
// family opts in through the family's guard (`isPlanEvent`) or one it builds with `familyGuard`.
// The emitters of the loop core import no family module, so the core cannot come to depend on one.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createFaux, fauxToolCall } from "@tern/ai/testing";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import {
  type AgentEvent,
  type AnswerEvent,
  agentLoop,
  type CoreAgentEvent,
  defineTool,
  familyGuard,
  isCoreEvent,
  isPlanEvent,
  type PlanEvent,
  userMessage,
} from "../../src/index.js";

/** One line per core event; adding a core variant without a case here is a compile error. */
function describeCore(event: CoreAgentEvent): string {
  switch (event.type) {
    case "agent_start":
      return `run ${event.runId}`;
    case "turn_start":
    case "turn_end":
      return `${event.type} ${event.turn}`;
    case "model_call_start":
    case "model_call_end":
    case "model_retry":
      return `${event.type} ${event.purpose}`;
    case "message_start":
    case "message_update":
    case "message_end":
      return `${event.type} ${event.message.role}`;
    case "context_update":
      return "context";
    case "tool_execution_start":
    case "tool_execution_update":
    case "tool_execution_end":
      return `${event.type} ${event.toolName}`;
    case "phase":
      return `phase ${event.phase}`;
    case "compaction_start":
    case "compaction_end":
      return `${event.type} ${event.reason}`;
    case "inject":
      return `inject ${event.kind}`;
    case "error":
      return `error ${event.source}`;
    case "agent_end":
      return `end ${event.stopReason}`;
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
}

/** A core-only consumer: it handles the core events and skips everything a feature adds. */
function coreLines(events: readonly AgentEvent[]): { lines: string[]; skipped: number } {
  const lines: string[] = [];
  let skipped = 0;
  for (const event of events) {
    if (isCoreEvent(event)) lines.push(describeCore(event));
    else skipped++;
  }
  return { lines, skipped };
}

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(): T | undefined => undefined;

const echo = defineTool({
  name: "echo",
  description: "Echo the text",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: (args: { text: string }) => args.text,
});

const planStart: PlanEvent = { type: "plan_start", round: 1, goal: "g", steps: [], timestamp: 0 };
const answerDelta: AnswerEvent = { type: "answer_delta", delta: "hi" };

describe("a consumer of the core events only", () => {
  it("handles every event of a real run and needs no family", async () => {
    const faux = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: "a" })] }, "done"] });
    const events: AgentEvent[] = [];
    const run = agentLoop([userMessage("go", 0)], { messages: [], tools: [echo] }, { model: faux.model });
    for await (const event of run) events.push(event);
    const { lines, skipped } = coreLines(events);
    expect(skipped).toBe(0);
    expect(lines[0]).toMatch(/^run /);
    expect(lines).toContain("tool_execution_end echo");
    expect(lines.at(-1)).toBe("end stop");
  });

  it("skips a feature's events it never opted into", () => {
    const { lines, skipped } = coreLines([planStart, answerDelta]);
    expect(lines).toEqual([]);
    expect(skipped).toBe(2);
  });

  it("shares no `type` string with a family (checked by the compiler)", () => {
    assertType<Equal<Extract<CoreAgentEvent["type"], PlanEvent["type"] | AnswerEvent["type"]>, never>>();
  });
});

describe("a consumer that opts into a family", () => {
  it("narrows plan events with the family's guard", () => {
    const rounds = [planStart, answerDelta].flatMap((event) => (isPlanEvent(event) ? [event.round] : []));
    expect(rounds).toEqual([1]);
  });

  it("builds its own guard for a family with familyGuard", () => {
    const isAnswerStream = familyGuard<AnswerEvent>({
      answer_start: true,
      answer_delta: true,
      answer_end: true,
    });
    const text = [planStart, answerDelta]
      .filter(isAnswerStream)
      .map((event) => (event.type === "answer_delta" ? event.delta : ""));
    expect(text).toEqual(["hi"]);
    // Events read back from a log are plain `{ type }` objects; the guard narrows them too.
    expect(isAnswerStream(JSON.parse('{"type":"answer_end","answer":"hi"}'))).toBe(true);
  });
});

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");
const CORE_EMITTERS = ["loop.ts", "run.ts", "tool-batch.ts", "types.ts", "events.ts"];
const FAMILY_FOLDERS = ["plan/", "subagents/", "policies/"];

/** The relative imports of a source file (type-only ones included), resolved against `src/`. */
function importsOf(source: string, from = "."): string[] {
  const { importedFiles } = ts.preProcessFile(source, true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((name) => name.startsWith("."))
    .map((name) => resolve(SRC, from, name).slice(SRC.length + 1));
}

describe("the loop core's emitters", () => {
  it.each(CORE_EMITTERS)("%s imports no family module", (file) => {
    const imports = importsOf(readFileSync(resolve(SRC, file), "utf8"));
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((path) => FAMILY_FOLDERS.some((folder) => path.startsWith(folder)))).toEqual([]);
  });

  it("would see a family import (the scan can fail)", () => {
    expect(importsOf('import { isPlanEvent } from "./plan/events.js";')).toEqual(["plan/events.js"]);
  });
});
