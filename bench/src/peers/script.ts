// The fixed script of each workload, shared by the server (which plays it and checks every
// request against it) and the workers (which give every runtime the same tools and prompts).
// A run is identified by the id in its prompt (`r000123`); the script is otherwise the same for
// every run, so every runtime must send back exactly the same tool results.

import { DUMP_TOOL, MANY_TOOLS, SAVE_TOOL, STEP_TOOL, type ToolDef } from "./tools.js";

/** Scaling workloads (`scaling` bench): how costs grow with transcript, argument and result size. */
export const SCALING_WORKLOADS = [
  "growth-25",
  "growth-200",
  "args-4k",
  "args-64k",
  "args-200k",
  "result-2m",
] as const;
export type ScalingWorkloadId = (typeof SCALING_WORKLOADS)[number];

export type WorkloadId = "loop" | "latency" | "tools" | "tools-imperfect" | "concurrency" | ScalingWorkloadId;

export interface ScriptedCall {
  name: string;
  args: Record<string, unknown>;
}

export interface Script {
  id: WorkloadId;
  system: string;
  tools: ToolDef[];
  /** The tool calls of one run, one per turn, in order; then the answer. */
  calls(runId: string): ScriptedCall[];
  answer: string;
  /** Characters per streamed text chunk of the answer. */
  textChunkChars: number;
  /** Characters per streamed piece of tool-call arguments. */
  argChunkChars: number;
  /** Milliseconds between chunks (0: written back to back). */
  gapMs: number;
  /** Tools the server picks when a runtime asks it to select tools (a forced structured call). */
  selection?: string[];
  /** Hold every final answer after its first chunk until the client releases the lane. */
  barrier?: boolean;
  /** Record each answer chunk's send time (latency workload). */
  recordSendTimes?: boolean;
}

/** Model calls of one run: one per tool call, then the answer. */
export const turnsOf = (script: Script) => script.calls("r0").length + 1;

export const runId = (n: number) => `r${String(n).padStart(6, "0")}`;
/** Run numbers from here up are warm-up runs (the concurrency barrier lets them through). */
export const WARMUP_BASE = 900_000;
export const isWarmUp = (id: string) => Number(id.slice(1)) >= WARMUP_BASE;
export const RUN_ID = /\br\d{6}\b/;

const words = (count: number) =>
  Array.from(
    { length: count },
    (_, i) => ["the", "steps", "all", "ran", "and", "passed", "cleanly"][i % 7],
  ).join(" ");

const stepCalls = (turns: number) => (id: string) =>
  Array.from({ length: turns }, (_, i) => ({ name: STEP_TOOL.name, args: { n: i + 1, run: id } }));

export const LOOP_TURNS = 20;
export const LATENCY_CHUNKS = 2000;
export const LATENCY_CHUNK_CHARS = 4; // one token each by the chars/4 estimator

const loop: Script = {
  id: "loop",
  system: "You run procedures step by step with the step tool, one call per turn, then report.",
  tools: [STEP_TOOL],
  calls: stepCalls(LOOP_TURNS),
  answer: `Done: ${words(40)}.`,
  textChunkChars: 8,
  argChunkChars: 10,
  gapMs: 0,
};

/** Chunk i of the latency answer: a space and i in base 36, padded to 3 characters. */
export const latencyChunk = (i: number) => ` ${i.toString(36).padStart(3, "0")}`;

const latency: Script = {
  id: "latency",
  system: "You write long answers.",
  tools: [],
  calls: () => [],
  answer: Array.from({ length: LATENCY_CHUNKS }, (_, i) => latencyChunk(i)).join(""),
  textChunkChars: LATENCY_CHUNK_CHARS,
  argChunkChars: 10,
  gapMs: 1,
  recordSendTimes: true,
};

const tools: Script = {
  id: "tools",
  system:
    "You are a coding assistant working in the user's repository. Use the tools to inspect and change " +
    "the code, verify your changes with the tests, and commit when they pass. Answer briefly.",
  tools: MANY_TOOLS,
  calls: (id) => [
    { name: "search_code", args: { pattern: "parseDuration\\(", glob: "src/**/*.ts", max_results: 20 } },
    { name: "read_file", args: { path: "src/time/duration.ts", offset: 1, limit: 120 } },
    {
      name: "edit_file",
      args: { path: "src/time/duration.ts", old_text: "value * 60", new_text: "value * 60 * 1000" },
    },
    { name: "run_tests", args: { filter: "duration", timeout_s: 120 } },
    {
      name: "git_commit",
      args: { message: `fix: minutes are milliseconds (${id})`, paths: ["src/time/duration.ts"] },
    },
  ],
  answer: "Fixed parseDuration: minutes were multiplied by 60 instead of 60,000. Tests pass; committed.",
  textChunkChars: 8,
  argChunkChars: 12,
  gapMs: 0,
  selection: ["search_code", "read_file", "edit_file", "run_tests", "git_commit", "list_directory"],
};

/**
 * The many-tools task with an imperfect selector reply: a needed tool (git_commit) missing, a
 * name with spaces, a duplicate and an unknown name.
 */
const toolsImperfect: Script = {
  ...tools,
  selection: [" read_file", "search_code", "edit_file", "run_tests", "read_file", "no_such_tool"],
};

export const CONCURRENCY_TURNS = 1;

const concurrency: Script = {
  id: "concurrency",
  system: "You run procedures step by step with the step tool, one call per turn, then report.",
  tools: [STEP_TOOL],
  calls: stepCalls(CONCURRENCY_TURNS),
  answer: `Done: ${words(16)}.`,
  textChunkChars: 16,
  argChunkChars: 24,
  gapMs: 400,
  barrier: true,
};

const growth = (turns: number, id: ScalingWorkloadId): Script => ({
  ...loop,
  id,
  calls: stepCalls(turns),
});

/** One `save` call whose argument is `kib` KiB of text, streamed one character per chunk. */
const args = (kib: number, id: ScalingWorkloadId): Script => {
  const size = kib * 1024;
  const line = (i: number) => `chunk ${String(i).padStart(6, "0")} of text.`; // 21 characters
  const text = Array.from({ length: Math.ceil(size / 21) }, (_, i) => line(i))
    .join("")
    .slice(0, size);
  return {
    ...loop,
    id,
    system: "You save texts with the save tool, then report.",
    tools: [SAVE_TOOL],
    calls: (run) => [{ name: SAVE_TOOL.name, args: { run, text } }],
    argChunkChars: 1,
  };
};

const result2m: Script = {
  ...loop,
  id: "result-2m",
  system: "You dump the run's log with the dump tool, then report.",
  tools: [DUMP_TOOL],
  calls: (run) => [{ name: DUMP_TOOL.name, args: { run } }],
};

export const SCRIPTS: Record<WorkloadId, Script> = {
  loop,
  latency,
  tools,
  "tools-imperfect": toolsImperfect,
  concurrency,
  "growth-25": growth(25, "growth-25"),
  "growth-200": growth(200, "growth-200"),
  "args-4k": args(4, "args-4k"),
  "args-64k": args(64, "args-64k"),
  "args-200k": args(200, "args-200k"),
  "result-2m": result2m,
};

/** The prompt of run `id` of a workload. */
export function promptFor(workload: WorkloadId, id: string): string {
  switch (workload) {
    case "loop":
    case "concurrency":
    case "growth-25":
    case "growth-200":
      return `Run ${id}: run the procedure's steps one at a time, then say you are done.`;
    case "args-4k":
    case "args-64k":
    case "args-200k":
      return `Run ${id}: save the text, then say you are done.`;
    case "result-2m":
      return `Run ${id}: dump the log, then say you are done.`;
    case "latency":
      return `Run ${id}: write the long answer.`;
    case "tools":
    case "tools-imperfect":
      return `Run ${id}: parseDuration("5m") returns 300 instead of 300000. Find the bug, fix it, run the tests, and commit.`;
  }
}
