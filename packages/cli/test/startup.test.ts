// `tern --version` must start fast: the entry file answers it alone and loads the runtime bundle
// only for real commands.
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { beforeAll, expect, it } from "vitest";
import { ensureBuilt, runTern, TERN_JS, ternEnv } from "./support/tern.js";

beforeAll(ensureBuilt);

const ESC = "\u001b[";

function fastest(args: string[], runs = 4): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    execFileSync(process.execPath, args, { stdio: "pipe" });
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return best;
}

it("prints the version and help without loading the runtime", async () => {
  const version = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;
  const result = await runTern(["--version"], { env: ternEnv() });
  expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
  const help = await runTern(["--help"], { env: ternEnv() });
  expect(help.stdout).toMatch(/^tern — /);
  expect(help.stdout).toMatch(/tern run \[PROMPT\]/);

  // The entry is small and reaches the runtime only through a dynamic import.
  const entry = readFileSync(TERN_JS, "utf8");
  expect(statSync(TERN_JS).size).toBeLessThan(20_000);
  expect(entry).toMatch(/import\("\.\/tern-app\.js"\)/);
  expect(entry).not.toMatch(/from "\.\/tern-app\.js"/);

  // Measured against bare Node on the same (possibly busy) machine: the difference is tern's own cost.
  const node = fastest(["-e", "0"]);
  const tern = fastest([TERN_JS, "--version"]);
  expect(tern - node).toBeLessThan(100);
});

it("an unknown command is bad usage with a suggestion", async () => {
  const result = await runTern(["chta"], { env: ternEnv() });
  expect(result.code).toBe(2);
  expect(result.stderr).toBe('tern: unknown command "chta"; did you mean "tern chat"? (see tern --help)\n');
});

it("colours progress only when asked to (FORCE_COLOR) and never with NO_COLOR", async () => {
  const plain = await runTern(["sessions", "ls", "--all"], {
    env: ternEnv({ TERN_HOME: "/nonexistent-tern-home" }),
  });
  expect(plain.stdout).not.toContain(ESC);
  const forced = await runTern(["models"], { env: ternEnv({ NO_COLOR: "", FORCE_COLOR: "1" }) });
  expect(forced.stdout).toContain(`${ESC}2m`);
  const both = await runTern(["models"], { env: ternEnv({ NO_COLOR: "1", FORCE_COLOR: "1" }) });
  expect(both.stdout).not.toContain(ESC);
});
