// The core event module describes what the loop emits without knowing any feature: it, and every
// module it reaches through its imports, imports nothing from plan mode or the policies.
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

/** Every source file `entry` reaches through relative imports, type-only ones included. */
function reached(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of importedFiles)
      if (fileName.startsWith(".")) visit(resolve(dirname(file), fileName.replace(/\.js$/, ".ts")));
  };
  visit(resolve(SRC, entry));
  return [...seen].map((file) => relative(SRC, file)).sort();
}

describe("the core event module", () => {
  it.each(["events.ts", "types.ts", "tool-result.ts"])("%s reaches no plan or policy module", (entry) => {
    const files = reached(entry);
    expect(files).toContain(entry);
    expect(files.filter((file) => file.startsWith("plan/") || file.startsWith("policies/"))).toEqual([]);
  });

  it("sees a feature module when one is imported (the check can fail)", () => {
    expect(reached("nested-runs.ts")).toContain("plan/events.ts");
  });
});
