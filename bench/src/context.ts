// Context-guard figures: how long the token estimate of a 200k-token transcript takes (cold: new
// message objects; cached: the same objects again, as on every later turn of a run), and what the
// guard costs per turn in a soak run: 500 tool turns of 20 KB results under a 32k budget, faux
// model and faux summariser at zero delay (so the time is tern's own). Compaction time is taken
// from compaction_start to compaction_end as the consumer sees them (the loop waits for it); the
// per-turn budget check alone on the 200k-token transcript.
import { performance } from "node:perf_hooks";
import { type AgentMessage, type AgentTool, agentLoop, contextGuard } from "@tern/agent";
import {
  type AssistantMessage,
  createFaux,
  emptyUsage,
  fauxToolCall,
  type ToolResultMessage,
} from "@tern/ai";
// The guard's estimate and compaction step measured on their own: internals of the context guard,
// not @tern/agent's public API, hence the paths.
import { estimateContext } from "../../packages/agent/src/context/budget.js";
import { compactContext } from "../../packages/agent/src/context/compact.js";
import { measure, round } from "./measure.js";

type Row = Record<string, string | number>;

const COLUMNS = ["messages", "tokens", "ms", "µs/turn", "compactions", "µs/compaction"];

function row(name: string, values: Record<string, string | number>): Row {
  const out: Row = { case: name };
  for (const column of COLUMNS) out[column] = values[column] ?? "-";
  return out;
}

const SYSTEM = "You are a careful coding agent. ".repeat(40);
const TOOLS = [
  {
    name: "read",
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
  {
    name: "bash",
    description: "Run a command",
    parameters: { type: "object", properties: { cmd: { type: "string" } } },
  },
];

/** A coding-session-like transcript of about `tokens` tokens: prompts, calls, results of mixed sizes. */
function transcript(tokens: number): AgentMessage[] {
  const messages: AgentMessage[] = [
    { role: "user", content: "Port the lexer to Rust.", timestamp: 0, pinned: true },
  ];
  let total = 0;
  for (let i = 0; total < tokens; i++) {
    const text = `Looking at step ${i}. `.repeat(6);
    const assistant: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "text", text },
        { type: "toolCall", id: `call_${i}`, name: "read", arguments: { path: `src/lexer/part-${i}.ts` } },
      ],
      api: "faux",
      provider: "faux",
      model: "bench",
      usage: emptyUsage(),
      stopReason: "toolUse",
      timestamp: i,
    };
    const size = [200, 1_500, 6_000, 400][i % 4]!;
    const result: ToolResultMessage = {
      role: "toolResult",
      toolCallId: `call_${i}`,
      toolName: "read",
      content: [{ type: "text", text: `export const part${i} = 1;\n`.padEnd(size, "/") }],
      isError: false,
      timestamp: i,
    };
    messages.push(assistant, result);
    total += text.length / 4 + size / 4 + 20;
  }
  return messages;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function estimateRows(): Promise<Row[]> {
  const base = transcript(200_000);
  const parts = { systemPrompt: SYSTEM, tools: TOOLS };
  const tokens = estimateContext(base, parts);
  const cold: number[] = [];
  const cached: number[] = [];
  for (let run = 0; run < 9; run++) {
    const fresh = structuredClone(base); // new objects: nothing of them is in the cache
    let start = performance.now();
    estimateContext(fresh, parts);
    cold.push(performance.now() - start);
    start = performance.now();
    estimateContext(fresh, parts);
    cached.push(performance.now() - start);
  }
  // The guard's per-turn check on the same transcript when nothing needs compacting.
  const faux = createFaux();
  const never = () => Promise.reject(new Error("no compaction expected"));
  const checks: number[] = [];
  for (let run = 0; run < 9; run++) {
    const start = performance.now();
    await compactContext({
      messages: base,
      model: faux.model,
      ...parts,
      reason: "threshold",
      options: { budget: 1e7 },
      summarise: never,
    });
    checks.push(performance.now() - start);
  }
  return [
    row("estimate 200k-token transcript, cold (median of 9)", {
      messages: base.length,
      tokens,
      ms: round(median(cold), 3),
    }),
    row("estimate 200k-token transcript, cached (median of 9)", {
      messages: base.length,
      tokens,
      ms: round(median(cached), 3),
    }),
    row("guard's per-turn check on it, nothing to compact (median of 9)", {
      messages: base.length,
      tokens,
      ms: round(median(checks), 3),
    }),
  ];
}

interface Soak {
  wallMs: number;
  turns: number;
  compactions: number;
  /** Wall time from each compaction_start to its compaction_end, summed (the loop waits meanwhile). */
  compactingMs: number;
  largestRequest: number;
}

const TURNS = 500;

/** 500 tool turns of `bytes`-sized results under the guard (32k budget). */
async function soak(bytes: number): Promise<Soak> {
  const model = createFaux({ recordRequests: false, chunkSize: 100_000 });
  for (let n = 1; n <= TURNS; n++) model.push({ content: [fauxToolCall("fetch", { page: n })] });
  model.push("done");
  const summariser = createFaux({ recordRequests: false, chunkSize: 100_000 });
  for (let n = 0; n < TURNS; n++) summariser.push(`## Request\nCrawl pages.\n## Next step\nCard ${n}.`);
  const body = "lorem ipsum ".repeat(Math.ceil(bytes / 12)).slice(0, bytes);
  const fetch: AgentTool<{ page: number }> = {
    name: "fetch",
    description: "Fetch a page",
    parameters: { type: "object", properties: { page: { type: "number" } } },
    execute: ({ page }) => `page ${page}\n${body}`,
  };
  const policies = [contextGuard({ budget: 32_000, summaryModel: summariser.model })];
  const out: Soak = { wallMs: 0, turns: 0, compactions: 0, compactingMs: 0, largestRequest: 0 };
  let startedAt = 0;
  const timing = await measure(async () => {
    const stream = agentLoop(
      [{ role: "user", content: "Crawl 500 pages.", timestamp: 0 }],
      { messages: [], tools: [fetch], systemPrompt: "You crawl pages." },
      { model: model.model, policies },
    );
    for await (const event of stream) {
      if (event.type === "compaction_start") startedAt = performance.now();
      if (event.type === "compaction_end") {
        out.compactions++;
        out.compactingMs += performance.now() - startedAt;
      }
      if (event.type === "model_call_end" && event.purpose === "turn")
        out.largestRequest = Math.max(out.largestRequest, event.usage.input);
    }
    const result = await stream.result();
    if (result.stopReason !== "stop")
      throw new Error(`soak ended with ${result.stopReason}: ${result.errorMessage}`);
    out.turns = result.iterations;
  });
  out.wallMs = timing.wallMs;
  return out;
}

/** The median (by wall time) of `runs` runs after a warm-up. */
async function median3(run: () => Promise<Soak>, runs = 3): Promise<Soak> {
  await run();
  const all: Soak[] = [];
  for (let i = 0; i < runs; i++) all.push(await run());
  return all.sort((a, b) => a.wallMs - b.wallMs)[Math.floor(runs / 2)]!;
}

async function soakRows(): Promise<Row[]> {
  const heavy = await median3(() => soak(20_480));
  const perTurn = (ms: number, turns: number) => round((ms * 1000) / turns, 1);
  return [
    row(`soak ${TURNS} turns x 20 KB results, guard at 32k (tokens: largest request)`, {
      tokens: heavy.largestRequest,
      ms: round(heavy.wallMs, 1),
      "µs/turn": perTurn(heavy.wallMs, heavy.turns),
      compactions: heavy.compactions,
    }),
    row("  of which compacting (compaction_start..end)", {
      ms: round(heavy.compactingMs, 1),
      "µs/turn": perTurn(heavy.compactingMs, heavy.turns),
      compactions: heavy.compactions,
      "µs/compaction": perTurn(heavy.compactingMs, Math.max(1, heavy.compactions)),
    }),
  ];
}

export async function contextBench(): Promise<Record<string, string | number>[]> {
  return [...(await estimateRows()), ...(await soakRows())];
}
