// The offline demo runs end to end in the suite and must end green; its session is then shown by
// `tern sessions show`.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { ensureBuilt, removeLater, runTern, tempDir, ternEnv } from "./support/tern.js";

beforeAll(ensureBuilt);

it("tern demo fixes the example project with a scripted model, and the session can be shown", async () => {
  const env = ternEnv({ TERN_HOME: tempDir() });
  const result = await runTern(["demo", "--fast"], { env, cwd: tempDir() });
  expect(result.code, result.stderr).toBe(0);
  const err = result.stderr;
  expect(err).toMatch(/a scripted model.*faux provider/);
  // Parallel reads: two calls started before either finished.
  expect(err).toMatch(/▸ glob \*\*\/\*\.js\n▸ read package\.json\n/);
  expect(err).toMatch(/▸ read src\/stats\.js\n▸ read test\/stats\.test\.js\n/);
  // The failing test, the denied command, the edit, the green rerun, in this order.
  const order = [
    /▸ bash \$ node --test\n {2}✗ bash · exit 1/,
    /▸ bash \$ rm -rf node_modules && npm install\n {2}⊘ bash · denied: the permission rule "bash\(rm -rf:\*\)" denies it/,
    /▸ edit src\/stats\.js\n {2}✓ edit · \+1 -1 lines/,
    /-\s+for \(let i = 1;/,
    /▸ bash \$ node --test\n {2}✓ bash · exit 0/,
    /The demo ended green/,
    /tern sessions show [0-9a-f]{8}/,
    /OPENAI_API_KEY[\s\S]*ANTHROPIC_API_KEY[\s\S]*ollama[\s\S]*llama/i,
  ];
  let from = 0;
  for (const pattern of order) {
    const match = pattern.exec(err.slice(from));
    expect(match, `${pattern} after offset ${from}:\n${err}`).not.toBeNull();
    from += match!.index + match![0].length;
  }
  // The agent's policies are on: a self-reflection after six tool calls, the completion checklist
  // before the answer is accepted; the short answer it rejected shows as a progress line.
  expect(err).toMatch(/↪ reflection: \[SELF-REFLECTION\] You have made 6 tool calls/);
  expect(err).toMatch(
    /“Fixed: `sum\(\)` skipped the first value.*3 passed, 0 failed\.”\n↪ completion-check: \[COMPLETION CHECK\]/,
  );
  // The answer on stdout quotes the real test result.
  expect(result.stdout).toMatch(/^Checked against the tool results/);
  expect(result.stdout).toMatch(/\*\*The bug:\*\* `sum\(\)` in `src\/stats\.js` started its loop at index 1/);
  expect(result.stdout).toMatch(/\*\*Verified:\*\* `node --test` passes: 3 passed, 0 failed\./);

  // The copy really is fixed, and the original example is untouched.
  const project = /The fixed copy stays in (\S+)/.exec(err)![1]!;
  removeLater(dirname(project));
  expect(readFileSync(join(project, "src", "stats.js"), "utf8")).toMatch(/let i = 0;/);
  execFileSync(process.execPath, ["--test"], { cwd: project, stdio: "pipe" });
  const original = new URL("../../../examples/stats-bug/src/stats.js", import.meta.url);
  expect(readFileSync(original, "utf8")).toMatch(/let i = 1;/);

  const id = /tern sessions show ([0-9a-f]{8})/.exec(err)![1]!;
  const shown = await runTern(["sessions", "show", id], { env });
  expect(shown.code, shown.stderr).toBe(0);
  expect(shown.stdout).toMatch(/tern demo: fix the failing test/);
  expect(shown.stdout).toMatch(/you: The tests of this project fail/);
  expect(shown.stdout).toMatch(/⊘ bash \$ rm -rf node_modules && npm install · denied/);
  expect(shown.stdout).toMatch(/✓ bash \$ node --test · exit 0/);
  // The policies' injections are labelled as what they are, not as the user.
  expect(shown.stdout).toMatch(/↪ reflection: \[SELF-REFLECTION\]/);
  expect(shown.stdout).toMatch(/↪ completion-check: \[COMPLETION CHECK\]/);
  expect(shown.stdout).not.toMatch(/you: \[/);
  expect(shown.stdout).toMatch(/\*\*The bug:\*\* `sum\(\)`/);
});
