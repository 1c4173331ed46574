// Keeps "one scripted model for every test" true: every package's tests get their scripted model
// from @tern/ai/testing (or from a support file of their own package built on it). A test that
// reaches into another package's test folder for a module that makes a model, that starts its own
// HTTP server streaming a model's events, or that takes the faux provider from @tern/ai's main
// entry (a README example run as written excepted) is a second dialect: this scan of
// packages/*/test names each one.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const thisFile = fileURLToPath(import.meta.url);
const packagesDir = resolve(dirname(thisFile), "../..");

/** Makes a model: a faux provider or a served script (the suites that only push replies do not). */
const MAKES_MODEL = /\bcreateFaux\(|\bserveScript\(/;
/** Starts an HTTP server of its own. */
const STARTS_SERVER = /\bcreateServer\(/;
/** Speaks a model's wire: Chat Completions chunks, Anthropic or Responses events, their routes. */
const MODEL_WIRE =
  /chat\.completion\.chunk|\/chat\/completions|\bmessage_start\b|content_block_delta|response\.created|response\.output_text/;

/** The faux provider taken from @tern/ai's main entry instead of @tern/ai/testing. */
const FAUX_FROM_MAIN =
  /import\s+(?:type\s+)?\{[^}]*\b(?:createFaux|faux(?:Text|Thinking|ToolCall)|Faux\w*|CUT_MESSAGE)\b[^}]*\}\s*from\s*"@tern\/ai"/;
/** Tests that run a README's example as written, importing what the README shows a user. */
const README_TEST = /(^|[\\/])readme\.test\.ts$/;

const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "fixtures" ? [] : testFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** The source behind an import specifier (`./x.js` is `./x.ts` in the tree). */
function sourceOf(specifier: string, from: string): string | undefined {
  const target = resolve(dirname(from), specifier);
  const candidates = [target, target.replace(/\.js$/, ".ts"), target.replace(/\.mjs$/, ".mts")];
  return candidates.find((candidate) => existsSync(candidate));
}

/** [package, folder] of a path under packages/, e.g. ["server", "test"]. */
function placeOf(path: string): [string, string] {
  const [pkg = "", folder = ""] = relative(packagesDir, path).split(sep);
  return [pkg, folder];
}

/** What is wrong with one test file's scripted model, if anything. */
function scriptedModelProblems(file: string, text: string): string[] {
  const problems: string[] = [];
  const [own] = placeOf(file);
  for (const [, specifier] of text.matchAll(RELATIVE_IMPORT)) {
    const source = sourceOf(specifier!, file);
    if (!source) continue;
    const [pkg, folder] = placeOf(source);
    if (pkg === own || folder !== "test") continue;
    if (MAKES_MODEL.test(readFileSync(source, "utf8")))
      problems.push(`imports a model from ${pkg}'s tests (${specifier}): use @tern/ai/testing`);
  }
  if (FAUX_FROM_MAIN.test(text) && !README_TEST.test(file))
    problems.push('takes the faux provider from "@tern/ai": import it from @tern/ai/testing');
  if (STARTS_SERVER.test(text) && MODEL_WIRE.test(text))
    problems.push("serves a model's stream from its own HTTP server: use serveScript from @tern/ai/testing");
  return problems;
}

describe("one scripted model for every test", () => {
  const files = readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(packagesDir, entry.name, "test")))
    .flatMap((entry) => testFiles(join(packagesDir, entry.name, "test")))
    // This file spells out the dialects it looks for.
    .filter((file) => file !== thisFile);

  it("no test takes its model from another package's tests or serves one of its own", () => {
    // The scan sees every package's tests (a wrong root would pass vacuously).
    expect(new Set(files.map((file) => placeOf(file)[0])).size).toBeGreaterThanOrEqual(10);
    const problems = files.flatMap((file) =>
      scriptedModelProblems(file, readFileSync(file, "utf8")).map(
        (problem) => `${relative(packagesDir, file)}: ${problem}`,
      ),
    );
    expect(problems).toEqual([]);
  });

  it("names both dialects it guards against, and lets other shared support through", () => {
    // A test of the cli package, as the scan would see it.
    const file = join(packagesDir, "cli", "test", "example.test.ts");
    const modelImport = `import { startModelServer } from "../../cluster/test/support/model-server.js";`;
    expect(scriptedModelProblems(file, modelImport)).toEqual([
      "imports a model from cluster's tests (../../cluster/test/support/model-server.js): use @tern/ai/testing",
    ]);
    const ownServer = `createServer((req, res) => res.end('data: {"object":"chat.completion.chunk"}\\n\\n'));`;
    expect(scriptedModelProblems(file, ownServer)).toEqual([
      "serves a model's stream from its own HTTP server: use serveScript from @tern/ai/testing",
    ]);
    const mainEntry = `import { createFaux, type Message } from "@tern/ai";`;
    expect(scriptedModelProblems(file, mainEntry)).toEqual([
      'takes the faux provider from "@tern/ai": import it from @tern/ai/testing',
    ]);
    expect(scriptedModelProblems(join(packagesDir, "cli", "test", "readme.test.ts"), mainEntry)).toEqual([]);
    // An SSE reader or a PostgreSQL from another package's tests is not a model.
    const otherSupport = `import { parseSse } from "../../server/test/support/sse.js";`;
    expect(scriptedModelProblems(file, otherSupport)).toEqual([]);
  });
});
