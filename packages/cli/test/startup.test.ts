// `tern --version` must start fast: the entry file answers it alone and loads the runtime bundle
// only for real commands. The suite checks that structure; the time itself is `npm run bench startup`.
import { copyFileSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { ensureBuilt, runTernProcess, TERN_JS, tempDir, ternEnv } from "./support/tern.js";

beforeAll(ensureBuilt);

const ESC = "\u001b[";

/** What `dist/tern-app.js`, the command table every command loads, may weigh: 20 KB (it is ~5 KB). */
const COMMAND_TABLE_BYTES_CEILING = 20 * 1024;

it("prints the version and help without loading the runtime", async () => {
  const version = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;
  const result = await runTernProcess(["--version"], { env: ternEnv() });
  expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
  const help = await runTernProcess(["--help"], { env: ternEnv() });
  expect(help.stdout).toMatch(/^tern — /);
  expect(help.stdout).toMatch(/tern run \[PROMPT\]/);

  // The entry is small and reaches the runtime only through a lazy require (the bundle is
  // CommonJS: scripts/commonjs-output.mjs), never one at its top level.
  const entry = readFileSync(TERN_JS, "utf8");
  const entryBytesCeiling = 20_000; // a size in bytes, not a time
  expect(statSync(TERN_JS).size).toBeLessThan(entryBytesCeiling);
  expect(entry).toMatch(/\(\) => require\("\.\/tern-app\.js"\)/);
  expect(entry).not.toMatch(/^(var|const|let) \w+ = require\("\.\/tern-app\.js"\)/m);
  expect(entry).not.toMatch(/import\(|\bimport .* from /);

  // The entry alone, with no runtime bundle beside it, still answers --version and --help: neither
  // loads the runtime (a load would fail here with ERR_MODULE_NOT_FOUND).
  const alone = join(tempDir(), "tern.js");
  copyFileSync(TERN_JS, alone);
  const bare = await runTernProcess(["--version"], { env: ternEnv(), entry: alone });
  expect(bare).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
  const bareHelp = await runTernProcess(["--help"], { env: ternEnv(), entry: alone });
  expect(bareHelp).toMatchObject({ code: 0, stdout: help.stdout, stderr: "" });
  // And the runtime is really behind the dynamic import: a command without it fails.
  const command = await runTernProcess(["models"], { env: ternEnv(), entry: alone });
  expect(command.code).not.toBe(0);
  expect(command.stderr).toMatch(/tern-app\.js/);
});

it("no command loads a chunk over 4096 KB, and `sessions ls` loads no agent runtime", async () => {
  // Sizes in bytes, not times: a dependency that slips back into every command fails here.
  const { loadReport } = await import("../scripts/bundle-report.mjs");
  const dist = join(TERN_JS, "..");
  const metafile = JSON.parse(readFileSync(join(dist, ".meta.json"), "utf8"));
  const rows = loadReport(metafile) as {
    module: string;
    largestFile: number;
    heaviest: { name: string }[];
  }[];
  const chunkBytesCeiling = 4096 * 1024;
  const commands = rows.filter((row) => row.module.includes("/src/commands/"));
  expect(commands.map((row) => row.module)).toEqual(
    expect.arrayContaining(["packages/cli/src/commands/run.ts", "packages/cli/src/commands/sessions.ts"]),
  );
  for (const row of rows)
    expect({ [row.module]: row.largestFile < chunkBytesCeiling }).toEqual({ [row.module]: true });
  // Every file this build wrote (older chunks may linger for processes that started before it).
  const outputs = Object.entries(metafile.outputs as Record<string, { bytes: number }>);
  for (const [path, { bytes }] of outputs)
    expect({ [path]: bytes < chunkBytesCeiling }).toEqual({ [path]: true });
  expect(statSync(join(dist, "chunks", "mvdan-sh.cjs")).size).toBeLessThan(chunkBytesCeiling);
  // The command table is small (a size in bytes): each command is a chunk of its own.
  const commandTableBytes = statSync(join(dist, "tern-app.js")).size;
  expect(commandTableBytes).toBeLessThan(COMMAND_TABLE_BYTES_CEILING);
  const sessions = rows.find((row) => row.module === "packages/cli/src/commands/sessions.ts")!;
  const heavy = sessions.heaviest.map((entry) => entry.name);
  for (const absent of ["highlight.js", "mvdan-sh", "@modelcontextprotocol/sdk", "pg", "turndown"])
    expect(heavy).not.toContain(absent);
  // Nor the sandbox (bubblewrap, the network proxy): reading sessions never runs bash.
  for (const command of ["sessions", "usage"]) {
    const row = rows.find((r) => r.module === `packages/cli/src/commands/${command}.ts`) as unknown as {
      output: string;
    };
    expect({
      [command]: modulesLoadedBy(metafile, row.output).has("packages/tools/src/sandbox/sandbox.ts"),
    }).toEqual({
      [command]: false,
    });
  }
});

type Metafile = {
  outputs: Record<
    string,
    { imports: { path: string; kind: string }[]; inputs: Record<string, { bytesInOutput: number }> }
  >;
};

/** The source modules with code in the files Node parses to load `output` (its static imports, transitively). */
function modulesLoadedBy(metafile: Metafile, output: string): Set<string> {
  const files = new Set<string>();
  const visit = (path: string) => {
    if (files.has(path) || !metafile.outputs[path]) return;
    files.add(path);
    for (const imported of metafile.outputs[path].imports)
      if (imported.kind === "import-statement") visit(imported.path);
  };
  visit(output);
  const modules = new Set<string>();
  for (const file of files)
    for (const [input, { bytesInOutput }] of Object.entries(metafile.outputs[file]!.inputs))
      if (bytesInOutput > 0) modules.add(input);
  return modules;
}

it("`mcp serve` loads neither the MCP client side nor Ajv before it can answer `initialize`", async () => {
  // Module names, not times: the SDK's validator is swapped for one that requires Ajv at its
  // first schema (packages/mcp/src/sdk-ajv-validator.ts), and `mcp ls|login` live apart.
  const metafile = JSON.parse(readFileSync(join(TERN_JS, "..", ".meta.json"), "utf8"));
  const { loadReport } = await import("../scripts/bundle-report.mjs");
  const row = loadReport(metafile).find((r) => r.module === "packages/cli/src/commands/mcp-serve.ts")!;
  const loaded = [...modulesLoadedBy(metafile, (row as unknown as { output: string }).output)];
  expect(loaded.filter((module) => /node_modules\/(ajv|ajv-formats)\//.test(module))).toEqual([]);
  expect(loaded).toContain("packages/mcp/src/sdk-ajv-validator.ts");
  expect(loaded.filter((module) => /sdk\/dist\/esm\/client\//.test(module))).toEqual([]);
  expect(loaded).not.toContain("packages/cli/src/commands/mcp-workspace.ts");
});

it("`run` loads no terminal Markdown, HTML reader, RE2 engine, MCP SDK, HTTP client, Ajv or YAML parser, and the bundle one zod", async () => {
  // Package names, not times: each of these is imported at its first use (a code block on a
  // terminal, an HTML page fetched, a grep or glob, an MCP server to start, the first model
  // call, the first JSON Schema, the first front matter), never at start.
  const { loadReport } = await import("../scripts/bundle-report.mjs");
  const metafile = JSON.parse(readFileSync(join(TERN_JS, "..", ".meta.json"), "utf8"));
  const run = loadReport(metafile).find((row) => row.module === "packages/cli/src/commands/run.ts")!;
  for (const lazy of [
    "marked-terminal",
    "highlight.js",
    "linkedom",
    "turndown",
    "@mozilla/readability",
    "re2js",
    "@modelcontextprotocol/sdk",
    "undici",
    "ajv",
    "yaml",
  ])
    expect(run.packages).not.toContain(lazy);
  expect(run.lazy).toEqual(
    expect.arrayContaining([
      "packages/cli/src/render/terminal-markdown.ts",
      "packages/tools/src/web/html-markdown.ts",
      "packages/cli/src/runtime/mcp-manager.ts",
    ]),
  );
  // zod 4 only, with its English messages: no zod/v4-mini copy and no other locale.
  const zodFiles = Object.keys(metafile.inputs).filter((input) => input.includes("node_modules/zod/"));
  expect(zodFiles.filter((input) => /\/v4\/mini\//.test(input))).toEqual([]);
  expect(zodFiles.some((input) => input.endsWith("/v4/locales/en.js"))).toBe(true);
  expect(zodFiles.filter((input) => /\/v4\/locales\/(?!en\.js$|index\.js$)/.test(input))).toEqual([]);
});

it("an unknown command is bad usage with a suggestion", async () => {
  const result = await runTernProcess(["chta"], { env: ternEnv() });
  expect(result.code).toBe(2);
  expect(result.stderr).toBe('tern: unknown command "chta"; did you mean "tern chat"? (see tern --help)\n');
});

it("colours progress only when asked to (FORCE_COLOR) and never with NO_COLOR", async () => {
  const plain = await runTernProcess(["sessions", "ls", "--all"], {
    env: ternEnv({ TERN_HOME: "/nonexistent-tern-home" }),
  });
  expect(plain.stdout).not.toContain(ESC);
  const forced = await runTernProcess(["models"], { env: ternEnv({ NO_COLOR: "", FORCE_COLOR: "1" }) });
  expect(forced.stdout).toContain(`${ESC}2m`);
  const both = await runTernProcess(["models"], { env: ternEnv({ NO_COLOR: "1", FORCE_COLOR: "1" }) });
  expect(both.stdout).not.toContain(ESC);
});
