// `npm run bench`: runs every benchmark, prints the tables and writes bench/results/<date>.json.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { printTable } from "./measure.js";
import { providerParseBench } from "./provider-parse.js";

const BENCHES: Record<string, () => Promise<Record<string, string | number>[]>> = {
  "provider parse throughput (loopback HTTP, real provider code)": providerParseBench,
};

const only = process.argv[2];
const results: Record<string, unknown> = {};
for (const [title, run] of Object.entries(BENCHES)) {
  if (only && !title.includes(only)) continue;
  const rows = await run();
  printTable(title, rows);
  results[title] = rows;
}
const versions = (name: string) =>
  (
    JSON.parse(readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url), "utf8")) as {
      version: string;
    }
  ).version;
const report = {
  date: new Date().toISOString(),
  node: process.version,
  versions: { openai: versions("openai"), "@anthropic-ai/sdk": versions("@anthropic-ai/sdk") },
  results,
};
mkdirSync(new URL("../results/", import.meta.url), { recursive: true });
const file = new URL(`../results/${report.date.slice(0, 10)}.json`, import.meta.url);
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nwrote ${file.pathname}`);
