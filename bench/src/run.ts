// `npm run bench [id...]`: runs each benchmark in a fresh child process, prints the tables and
// writes bench/results/<date>.json with the versions of everything measured, after every
// benchmark (a crash or a kill late in a long run keeps the ids already done).
import { fork } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { BENCHES, type Rows } from "./benches.js";
import { printTable } from "./measure.js";

function runChild(id: string): Promise<Rows> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL("./child.ts", import.meta.url), [id], {
      execArgv: ["--import", "tsx", "--expose-gc"],
    });
    let rows: Rows | undefined;
    child.on("message", (message) => {
      rows = message as Rows;
    });
    child.on("exit", (code) =>
      rows ? resolve(rows) : reject(new Error(`benchmark ${id} exited with ${code}`)),
    );
  });
}

/** The installed version: npm puts a package under bench/ when the root holds another version of it. */
function versionOf(name: string): string {
  for (const dir of ["../node_modules/", "../../node_modules/"]) {
    const file = new URL(`${dir}${name}/package.json`, import.meta.url);
    if (existsSync(file)) return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
  }
  return "not installed";
}

const wanted = process.argv.slice(2);
const results: Record<string, Rows | { error: string }> = {};
const date = new Date().toISOString();
const file = new URL(`../results/${date.slice(0, 10)}.json`, import.meta.url);
// A partial run (`npm run bench agent-loop`) keeps the day's other results.
const earlier = existsSync(file)
  ? ((JSON.parse(readFileSync(file, "utf8")) as { results?: typeof results }).results ?? {})
  : {};

function save(): void {
  const report = {
    date,
    node: process.version,
    machine: { cpus: cpus().length, platform: process.platform, arch: process.arch },
    versions: {
      tern: versionOf("@tern/ai"),
      openai: versionOf("openai"),
      "@anthropic-ai/sdk": versionOf("@anthropic-ai/sdk"),
      "@mariozechner/pi-agent-core": versionOf("@mariozechner/pi-agent-core"),
      "@mariozechner/pi-ai": versionOf("@mariozechner/pi-ai"),
      ai: versionOf("ai"),
      "@ai-sdk/openai-compatible": versionOf("@ai-sdk/openai-compatible"),
      "@openai/agents": versionOf("@openai/agents"),
    },
    results: { ...earlier, ...results },
  };
  mkdirSync(new URL("../results/", import.meta.url), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}

let failed = false;
for (const [id, bench] of Object.entries(BENCHES)) {
  if (wanted.length > 0 && !wanted.includes(id)) continue;
  try {
    const rows = await runChild(id);
    printTable(bench.title, rows);
    results[id] = rows;
  } catch (error) {
    failed = true;
    console.error(`\n${bench.title}: FAILED: ${(error as Error).message}`);
    results[id] = { error: (error as Error).message };
  }
  save();
}
console.log(`\nwrote ${file.pathname}`);
process.exitCode = failed ? 1 : 0;
