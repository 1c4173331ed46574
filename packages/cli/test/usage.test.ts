// `tern usage` end to end: real sessions made by `tern run` against the scripted loopback model
// (one model with prices in config.json, one without), then the report's totals checked against
// the `model_call_end` events in the session files themselves.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ScriptServer, serveScript } from "@tern/ai/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textReply, toolReply } from "./support/replies.js";
import { ensureBuilt, runTern, tempDir, ternEnv } from "./support/tern.js";

const PRICED = "priced-model";
const UNPRICED = "test-model";

let server: ScriptServer;
let home: string;
let work: string;
/** What `tern run` printed on stderr for each prompt. */
const runOutput = new Map<string, string>();

function env(model: string): NodeJS.ProcessEnv {
  return ternEnv({
    TERN_HOME: home,
    TERN_PROVIDER: "llamacpp",
    TERN_MODEL: model,
    TERN_BASE_URL: `${server.baseUrl}/v1`,
  });
}

const usage = (args: string[]) => runTern(["usage", ...args], { env: env(UNPRICED), cwd: work });

beforeAll(async () => {
  ensureBuilt();
  home = tempDir();
  work = tempDir();
  writeFileSync(join(work, "notes.txt"), "hello\n");
  writeFileSync(
    join(home, "config.json"),
    JSON.stringify({
      models: [
        { id: PRICED, provider: "llamacpp", prices: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 } },
      ],
    }),
  );
  server = await serveScript([
    textReply("Unpriced answer."),
    toolReply([{ name: "read", args: { path: "notes.txt" } }]),
    textReply("It says hello."),
    textReply("Priced answer."),
  ]);
  for (const [model, prompt] of [
    [UNPRICED, "first"],
    [PRICED, "read notes.txt"],
    [PRICED, "third"],
  ] as const) {
    const result = await runTern(["run", prompt], { env: env(model), cwd: work });
    expect(result.code, result.stderr).toBe(0);
    runOutput.set(prompt, result.stderr);
  }
});

afterAll(async () => {
  await server?.close();
});

interface CallEnd {
  model: string;
  purpose: string;
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number; cost: { total: number } };
}

/** Every model_call_end event in the session files, read without tern. */
function callEnds(): CallEnd[] {
  const dir = join(home, "sessions");
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) =>
    name.endsWith(".jsonl"),
  );
  return files.flatMap((file) =>
    readFileSync(join(dir, file), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.type === "event" && entry.event.type === "model_call_end")
      .map((entry) => entry.event as CallEnd),
  );
}

function sum(calls: CallEnd[]) {
  return {
    calls: calls.length,
    input: calls.reduce((n, call) => n + call.usage.input, 0),
    output: calls.reduce((n, call) => n + call.usage.output, 0),
    cacheRead: calls.reduce((n, call) => n + call.usage.cacheRead, 0),
    cacheWrite: calls.reduce((n, call) => n + call.usage.cacheWrite, 0),
  };
}

interface JsonRow {
  key: string;
  calls: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number | null;
  unpricedCalls: number;
}

async function report(args: string[] = []) {
  const result = await usage(["--json", ...args]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { sessions: number; rows: JsonRow[]; total: JsonRow };
}

describe("tern usage", () => {
  it("totals equal the sum of the sessions' model_call_end events; unpriced cost is unknown, not $0", async () => {
    const events = callEnds();
    const priced = events.filter((call) => call.model === PRICED);
    const unpriced = events.filter((call) => call.model === UNPRICED);
    expect(priced.length).toBeGreaterThanOrEqual(3);
    expect(unpriced.length).toBeGreaterThanOrEqual(1);

    const { sessions, rows, total } = await report();
    expect(sessions).toBe(3);
    const { cost: totalCost, unpricedCalls, key: _key, ...counts } = total;
    expect(counts).toEqual(sum(events));
    expect(unpricedCalls).toBe(unpriced.length);
    const pricedCost = priced.reduce((n, call) => n + call.usage.cost.total, 0);
    expect(pricedCost).toBeGreaterThan(0);
    expect(totalCost).toBeCloseTo(pricedCost, 12);

    const byKey = Object.fromEntries(rows.map((row) => [row.key, row]));
    expect(byKey[`llamacpp/${UNPRICED}`]).toMatchObject({ ...sum(unpriced), cost: null });
    expect(byKey[`llamacpp/${PRICED}`]).toMatchObject({ ...sum(priced), unpricedCalls: 0 });
    expect(byKey[`llamacpp/${PRICED}`]!.cost).toBeCloseTo(pricedCost, 12);

    const text = await usage([]);
    expect(text.stdout).toMatch(new RegExp(`llamacpp/${UNPRICED} +${unpriced.length} .*unknown\\n`));
    expect(text.stdout).toMatch(/\ntotal +\d+ .*\$[\d.]+ \+ unknown\n$/);
  });

  it("`tern run` shows each session's cost as `tern usage` does: unknown without a price", async () => {
    const bySession = await usage(["--by", "session"]);
    expect(bySession.code, bySession.stderr).toBe(0);
    const unpricedRun = runOutput.get("first")!;
    expect(unpricedRun).toMatch(/✔ done · 1 turn · \S+ tokens · unknown · /);
    expect(unpricedRun).not.toMatch(/\$0/);
    expect(bySession.stdout).toMatch(/ first +1 .* unknown\n/);
    const pricedRun = runOutput.get("third")!;
    const cost = /✔ done · 1 turn · \S+ tokens · (\$[\d.]+) · /.exec(pricedRun)?.[1];
    expect(cost, pricedRun).toBeDefined();
    expect(bySession.stdout).toContain(` third `);
    expect(bySession.stdout).toMatch(new RegExp(` third +1 .* \\${cost}\n`));
  });

  it.each(["day", "session", "purpose"])("--by %s splits the same totals", async (by) => {
    const { rows, total } = await report(["--by", by]);
    const events = callEnds();
    expect(total.calls).toBe(events.length);
    for (const field of ["calls", "input", "output", "cacheRead", "cacheWrite", "unpricedCalls"] as const)
      expect(rows.reduce((n, row) => n + row[field], 0)).toBe(total[field]);
    if (by === "session") expect(rows).toHaveLength(3);
    if (by === "purpose")
      expect(rows.map((row) => row.key).sort()).toEqual([...new Set(events.map((e) => e.purpose))].sort());
  });

  it("--since keeps recent calls and drops older ones", async () => {
    expect((await report(["--since", "2w"])).total.calls).toBe(callEnds().length);
    expect((await report(["--since", "1970-01-01"])).total.calls).toBe(callEnds().length);
    const future = await report(["--since", "2999-01-01T00:00Z"]);
    expect(future.total.calls).toBe(0);
    expect(future.total.cost).toBe(0);
    expect((await usage(["--since", "2999-01-01"])).stdout).toBe("no model calls recorded\n");
  });

  it.each([["yesterday"], ["2026-02-30"], ["7x"], ["2026-11-30T09:00"], [""]])(
    "--since %j is a usage error (exit 2)",
    async (since) => {
      const result = await usage(["--since", since]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--since must be a day \(2026-11-30\), a moment with its zone/);
    },
  );

  it("--by with another value is a usage error (exit 2)", async () => {
    const result = await usage(["--by", "week"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--by must be one of model, day, session, purpose/);
  });
});
