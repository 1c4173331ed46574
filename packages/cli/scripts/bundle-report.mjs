#!/usr/bin/env node
// What each `tern` command loads: reads the metafile the build leaves in dist/.meta.json and, for
// every module the build split out at a dynamic import() (each command of app.ts's table, each
// lazily loaded feature), adds up the files Node parses before that module runs — its chunk and
// every chunk it imports statically — and names the packages that weigh most in them.
//   node packages/cli/scripts/bundle-report.mjs            a table, largest first
//   node packages/cli/scripts/bundle-report.mjs --json     the same as JSON
//   node packages/cli/scripts/bundle-report.mjs --all      every split point, not only commands
// `tern.js` (the entry) is counted in each row; what the command table (`tern-app.js`) loads before
// any command is its own row, `cli/src/app.ts`.
import { readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const cliDir = dirname(dirname(fileURLToPath(import.meta.url)));
const repoRoot = dirname(dirname(cliDir));
const distDir = join(cliDir, "dist");

/** The package a bundled input belongs to: `pg`, `@modelcontextprotocol/sdk`, `packages/tools`. */
function packageOf(input) {
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  if (dependency) return dependency[1];
  return /^packages\/[^/]+/.exec(input)?.[0] ?? input;
}

/**
 * Every split point of the metafile with what loading it costs: `bytes` is its output plus every
 * output it imports statically (transitively), `lazy` the split points it may import later.
 */
export function loadReport(metafile, entryBytes = 0) {
  const outputs = metafile.outputs;
  const closure = (start) => {
    const seen = new Set();
    const visit = (path) => {
      if (seen.has(path) || !outputs[path]) return;
      seen.add(path);
      for (const imported of outputs[path].imports)
        if (imported.kind === "import-statement") visit(imported.path);
    };
    visit(start);
    return seen;
  };
  const rows = [];
  for (const [path, output] of Object.entries(outputs)) {
    if (!output.entryPoint) continue;
    const files = closure(path);
    const packages = {};
    let bytes = entryBytes;
    for (const file of files) {
      bytes += outputs[file].bytes;
      for (const [input, { bytesInOutput }] of Object.entries(outputs[file].inputs)) {
        const name = packageOf(input);
        packages[name] = (packages[name] ?? 0) + bytesInOutput;
      }
    }
    const lazy = new Set();
    for (const file of files)
      for (const imported of outputs[file].imports)
        if (imported.kind === "dynamic-import" && outputs[imported.path]?.entryPoint)
          lazy.add(outputs[imported.path].entryPoint);
    rows.push({
      module: output.entryPoint,
      output: path,
      bytes,
      files: files.size,
      largestFile: Math.max(...[...files].map((file) => outputs[file].bytes)),
      heaviest: Object.entries(packages)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([name, size]) => ({ name, bytes: size })),
      packages: Object.keys(packages).sort(),
      lazy: [...lazy].sort(),
    });
  }
  return rows.sort((a, b) => b.bytes - a.bytes);
}

const kb = (bytes) => `${Math.round(bytes / 1024).toLocaleString("en")} KB`;

function main(args) {
  const metafile = JSON.parse(readFileSync(join(distDir, ".meta.json"), "utf8"));
  // The entry (tern.js) comes before any command's chunk; it is not in the metafile.
  const entryBytes = statSync(join(distDir, "tern.js")).size;
  let rows = loadReport(metafile, entryBytes);
  if (!args.includes("--all"))
    rows = rows.filter((row) => /\/src\/commands\/|\/src\/app\.ts$/.test(row.module));
  if (args.includes("--json")) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const lines = rows.map((row) => {
    const module = relative(repoRoot, join(repoRoot, row.module)).replace(/^packages\//, "");
    const heaviest = row.heaviest.map((entry) => `${entry.name} ${kb(entry.bytes)}`).join(", ");
    return `${module.padEnd(44)} ${kb(row.bytes).padStart(9)} ${String(row.files).padStart(4)} ${kb(row.largestFile).padStart(9)}  ${heaviest}`;
  });
  process.stdout.write(
    `${"module (loaded with tern.js + tern-app.js)".padEnd(44)} ${"loads".padStart(9)} ${"files".padStart(4)} ${"largest".padStart(9)}  heaviest packages\n${lines.join("\n")}\n`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
