// The sandbox's price per `bash` call: `true` through the bash tool with the sandbox on
// (bubblewrap: namespaces, mounts) and off (a plain process group), in interleaved rounds so a
// busy machine slows both alike. Medians per call, with the range of the round medians.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type AnyBuiltinTool, createSandbox, createTools } from "@tern/tools";
import type { Rows } from "./benches.js";
import { round } from "./measure.js";
import { median } from "./workloads/table.js";

const ROUNDS = 9;
const CALLS_PER_ROUND = 20;
const WARMUP_CALLS = 5;

async function call(bash: AnyBuiltinTool): Promise<number> {
  const start = performance.now();
  const result = await bash.execute(
    { command: "true" },
    { signal: new AbortController().signal, toolCallId: "bench", onUpdate: async () => {} },
  );
  const ms = performance.now() - start;
  if (typeof result === "object" && result.isError) throw new Error(JSON.stringify(result.content));
  return ms;
}

export async function sandboxBench(): Promise<Rows> {
  const status = await createSandbox().status();
  if (status.profile === "sandbox" && !status.available)
    return [{ case: "bash -c true", note: `not measured: ${status.reason}` }];
  const root = mkdtempSync(join(tmpdir(), "tern-bench-sandbox-"));
  try {
    const bashFor = (profile: "sandbox" | "off") =>
      createTools({ root, only: ["bash"], sandbox: { profile } })[0]!;
    const lanes = { sandbox: bashFor("sandbox"), off: bashFor("off") };
    for (const bash of Object.values(lanes)) for (let i = 0; i < WARMUP_CALLS; i++) await call(bash);

    const perCall = { sandbox: [] as number[], off: [] as number[] };
    const roundMedians = { sandbox: [] as number[], off: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which lane goes first, so neither always follows the other.
      const order = round % 2 === 0 ? (["sandbox", "off"] as const) : (["off", "sandbox"] as const);
      for (const lane of order) {
        const times: number[] = [];
        for (let i = 0; i < CALLS_PER_ROUND; i++) times.push(await call(lanes[lane]));
        perCall[lane].push(...times);
        roundMedians[lane].push(median(times));
      }
    }
    const overheads = roundMedians.sandbox.map((ms, i) => ms - roundMedians.off[i]!);
    const row = (name: string, values: number[], rounds: number[]) => ({
      case: name,
      "median ms": round(median(values)),
      "round medians min–max": `${round(Math.min(...rounds))}–${round(Math.max(...rounds))}`,
      calls: values.length,
    });
    return [
      row("bash -c true, sandbox off", perCall.off, roundMedians.off),
      row("bash -c true, sandbox on (bubblewrap)", perCall.sandbox, roundMedians.sandbox),
      {
        case: "sandbox overhead per call",
        "median ms": round(median(overheads)),
        "round medians min–max": `${round(Math.min(...overheads))}–${round(Math.max(...overheads))}`,
        calls: ROUNDS,
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
