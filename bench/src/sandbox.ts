// The sandbox's price per `bash` call: `true` through the bash tool with the sandbox on
// (bubblewrap: namespaces, mounts), on with a host allow-list (plus tern's proxy and the Node
// bridge inside) and off (a plain process group), in interleaved rounds so a busy machine slows
// all alike. Medians per call, with the range of the round medians.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type AnyBuiltinTool, createSandbox, createTools, type SandboxOptions } from "@tern/tools";
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
    const bashFor = (sandbox: SandboxOptions) => createTools({ root, only: ["bash"], sandbox })[0]!;
    const lanes = {
      off: bashFor({ profile: "off" }),
      sandbox: bashFor({ profile: "sandbox" }),
      hosts: bashFor({ profile: "sandbox", allowHosts: ["registry.npmjs.org"] }),
    };
    type Lane = keyof typeof lanes;
    const names = Object.keys(lanes) as Lane[];
    for (const bash of Object.values(lanes)) for (let i = 0; i < WARMUP_CALLS; i++) await call(bash);

    const perCall: Record<Lane, number[]> = { off: [], sandbox: [], hosts: [] };
    const roundMedians: Record<Lane, number[]> = { off: [], sandbox: [], hosts: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate which lane goes first, so none always follows another.
      const order = names.map((_, i) => names[(i + round) % names.length]!);
      for (const lane of order) {
        const times: number[] = [];
        for (let i = 0; i < CALLS_PER_ROUND; i++) times.push(await call(lanes[lane]));
        perCall[lane].push(...times);
        roundMedians[lane].push(median(times));
      }
    }
    const row = (name: string, values: number[], rounds: number[]) => ({
      case: name,
      "median ms": round(median(values)),
      "round medians min–max": `${round(Math.min(...rounds))}–${round(Math.max(...rounds))}`,
      calls: values.length,
    });
    const overhead = (name: string, lane: Lane, base: Lane) => {
      const differences = roundMedians[lane].map((ms, i) => ms - roundMedians[base][i]!);
      return { ...row(name, differences, differences), calls: ROUNDS };
    };
    return [
      row("bash -c true, sandbox off", perCall.off, roundMedians.off),
      row("bash -c true, sandbox on (bubblewrap)", perCall.sandbox, roundMedians.sandbox),
      row("bash -c true, sandbox on with a host allow-list", perCall.hosts, roundMedians.hosts),
      overhead("sandbox overhead per call", "sandbox", "off"),
      overhead("host allow-list overhead per call (proxy + bridge)", "hosts", "sandbox"),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
