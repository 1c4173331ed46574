// Configuration comes from the host (issue 30): the libraries take options, and only the CLI
// reads environment variables and maps them onto options (packages/cli/src/config/library-options.ts,
// the table in packages/cli/README.md). This scans every library's src for `process.env` with the
// TypeScript parser (so comments and strings do not count) and fails on a read outside the
// allow-list below, each entry with the reason it stays.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { expect, it } from "vitest";

const PACKAGES = join(import.meta.dirname, "..", "..");

const ALLOWED: Record<string, string> = {
  "ai/src/api-keys.ts":
    "API keys from their standard variables (OPENAI_API_KEY, ...): the one accepted exception, so a library user's key works as it does in every vendor SDK",
  "tools/src/sandbox/sandbox.ts":
    "the sandboxed command's environment is the parent's, scrubbed to an allow-list, and bwrap is found on its PATH: it is the child's environment, not tern's configuration",
  "session/src/redact.ts":
    "the redactor reads secret VALUES (key-like variables) to remove them from what a session stores: a safety net that must not depend on the host remembering to pass them",
  "store-pg/src/redact.ts":
    "the same safety net for PGPASSWORD's value in messages; and describing a target from the PG* variables that the pg driver itself reads (libpq's convention), so the message names where it connected",
};

/** Every .ts file under a library's src, as `<package>/src/...`. */
function librarySources(): string[] {
  const files: string[] = [];
  for (const name of readdirSync(PACKAGES)) {
    if (name === "cli") continue;
    const src = join(PACKAGES, name, "src");
    let entries: string[];
    try {
      entries = readdirSync(src, { recursive: true, encoding: "utf8" });
    } catch {
      continue;
    }
    for (const entry of entries)
      if (entry.endsWith(".ts")) files.push(relative(PACKAGES, join(src, entry)).split("\\").join("/"));
  }
  return files.sort();
}

/** Lines where `process.env` (or `process["env"]`) is read. */
function environmentReads(file: string): number[] {
  const text = readFileSync(join(PACKAGES, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines: number[] = [];
  const visit = (node: ts.Node) => {
    const isProcess = (expression: ts.Expression) =>
      ts.isIdentifier(expression) && expression.text === "process";
    const reads =
      (ts.isPropertyAccessExpression(node) && isProcess(node.expression) && node.name.text === "env") ||
      (ts.isElementAccessExpression(node) &&
        isProcess(node.expression) &&
        ts.isStringLiteralLike(node.argumentExpression) &&
        node.argumentExpression.text === "env");
    if (reads) lines.push(source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

it("no library reads process.env outside the allow-list", () => {
  const files = librarySources();
  // The scan reaches every library (not an empty or misplaced folder), and the CLI stays out.
  const scanned = new Set(files.map((file) => file.split("/")[0]));
  for (const library of ["ai", "agent", "session", "tools", "mcp", "server", "store-pg", "cluster", "sdk"])
    expect(scanned, library).toContain(library);
  expect(scanned).not.toContain("cli");
  const unexpected = files
    .filter((file) => !(file in ALLOWED))
    .flatMap((file) => environmentReads(file).map((line) => `${file}:${line}`));
  expect(unexpected).toEqual([]);
});

it("every allow-listed file still reads the environment (a stale entry is removed)", () => {
  for (const file of Object.keys(ALLOWED)) expect(environmentReads(file), file).not.toEqual([]);
});
