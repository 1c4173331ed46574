// Session figures: appends per second (fsync "never", "turn", "always") and the time to load and
// build the context of 10,000- and 100,000-entry session files.
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { AssistantMessage, Message } from "@tern/ai";
import { FileSessionStore, type FsyncMode, loadFileSession } from "@tern/session";
import { round } from "./measure.js";

const TURN = 3; // user or tool result, assistant with a tool call, tool result: a flush after each
const text = (n: number) => `line ${n}: ${"lorem ipsum dolor sit amet ".repeat(12)}`;

/** A realistic mix (exported for the listing bench): a prompt, then assistant tool calls and tool results (about 0.5 KB a line). */
export function message(i: number): Message {
  if (i % TURN === 0) return { role: "user", content: text(i), timestamp: i };
  if (i % TURN === 1) {
    const assistant: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "text", text: text(i).slice(0, 120) },
        { type: "toolCall", id: `call_${i}`, name: "read", arguments: { path: `src/file-${i}.ts` } },
      ],
      api: "faux",
      provider: "faux",
      model: "faux-1",
      usage: {
        input: 1000,
        output: 50,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 1050,
        cost: { input: 0.001, output: 0.0001, cacheRead: 0, cacheWrite: 0, total: 0.0011 },
      },
      stopReason: "toolUse",
      timestamp: i,
    };
    return assistant;
  }
  return {
    role: "toolResult",
    toolCallId: `call_${i - 1}`,
    toolName: "read",
    content: [{ type: "text", text: text(i) }],
    isError: false,
    timestamp: i,
  };
}

async function appendRate(home: string, fsync: FsyncMode, count: number) {
  const store = new FileSessionStore({ home, fsync });
  const session = await store.create({ cwd: `/bench/${fsync}` });
  const messages = Array.from({ length: count }, (_, i) => message(i));
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    session.appendMessage(messages[i]!);
    if (i % TURN === TURN - 1) await session.flush();
  }
  const ms = performance.now() - start;
  await session.close();
  return row(`append, fsync "${fsync}"`, count, {
    "appends/s": Math.round((count / ms) * 1000),
    "µs/append": round((ms * 1000) / count, 1),
  });
}

/** Writes the file and lets go of everything it built, so the load runs on a clean heap. */
async function writeSession(home: string, entries: number): Promise<string> {
  const store = new FileSessionStore({ home, fsync: "never" });
  const session = await store.create({ cwd: "/bench/load" });
  for (let i = 0; i < entries; i++) session.appendMessage(message(i));
  await session.close();
  return session.path!;
}

async function loadTime(home: string, entries: number, runs = 11) {
  const path = await writeSession(home, entries);
  (globalThis as { gc?: () => void }).gc?.();
  // Interleaved with a floor that does nothing of this package (read the file, JSON.parse each
  // line, keep the objects as any loader must), so both see the same heap and machine load.
  const load: number[] = [];
  const floor: number[] = [];
  let messages = 0;
  let kept: unknown;
  for (let run = -2; run < runs; run++) {
    let start = performance.now();
    const out: unknown[] = [];
    for (const line of readFileSync(path, "latin1").split("\n")) if (line) out.push(JSON.parse(line));
    kept = out;
    if (run >= 0) floor.push(performance.now() - start); // two warm-up rounds first
    start = performance.now();
    messages = loadFileSession(path).buildContext().messages.length;
    if (run >= 0) load.push(performance.now() - start);
  }
  void kept;
  const median = (times: number[]) => round(times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!, 1);
  const size = Math.round(statSync(path).size / 1024);
  return [
    row(`load + build context (median of ${runs}, warm)`, entries, {
      "file KB": size,
      "load ms": median(load),
      "min ms": round(Math.min(...load), 1),
      "context messages": messages,
    }),
    row("  floor: read + JSON.parse each line", entries, {
      "file KB": size,
      "load ms": median(floor),
      "min ms": round(Math.min(...floor), 1),
    }),
  ];
}

/** Every row has every column (the table printer takes its columns from the first row). */
function row(name: string, entries: number, values: Record<string, number>): Record<string, string | number> {
  const columns = ["appends/s", "µs/append", "file KB", "load ms", "min ms", "context messages"];
  const out: Record<string, string | number> = { case: name, entries };
  for (const column of columns) out[column] = values[column] ?? "-";
  return out;
}

export async function sessionBench(): Promise<Record<string, string | number>[]> {
  const home = mkdtempSync(join(tmpdir(), "tern-bench-session-"));
  try {
    // Load first, before the append runs fill the heap.
    const load = await loadTime(home, 10_000);
    const large = await loadTime(home, 100_000, 5);
    return [
      await appendRate(home, "never", 10_000),
      await appendRate(home, "turn", 3_000),
      await appendRate(home, "always", 1_000),
      ...load,
      ...large,
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
