// `tern --version` must start fast: the entry file answers it alone and loads the runtime bundle
// only for real commands. The suite checks that structure; the time itself is `npm run bench startup`.
import { copyFileSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { ensureBuilt, runTern, TERN_JS, tempDir, ternEnv } from "./support/tern.js";

beforeAll(ensureBuilt);

const ESC = "\u001b[";

it("prints the version and help without loading the runtime", async () => {
  const version = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version;
  const result = await runTern(["--version"], { env: ternEnv() });
  expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
  const help = await runTern(["--help"], { env: ternEnv() });
  expect(help.stdout).toMatch(/^tern — /);
  expect(help.stdout).toMatch(/tern run \[PROMPT\]/);

  // The entry is small and reaches the runtime only through a dynamic import.
  const entry = readFileSync(TERN_JS, "utf8");
  const entryBytesCeiling = 20_000; // a size in bytes, not a time
  expect(statSync(TERN_JS).size).toBeLessThan(entryBytesCeiling);
  expect(entry).toMatch(/import\("\.\/tern-app\.js"\)/);
  expect(entry).not.toMatch(/from "\.\/tern-app\.js"/);

  // The entry alone, with no runtime bundle beside it, still answers --version and --help: neither
  // loads the runtime (a load would fail here with ERR_MODULE_NOT_FOUND).
  const alone = join(tempDir(), "tern.js");
  copyFileSync(TERN_JS, alone);
  const bare = await runTern(["--version"], { env: ternEnv(), entry: alone });
  expect(bare).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
  const bareHelp = await runTern(["--help"], { env: ternEnv(), entry: alone });
  expect(bareHelp).toMatchObject({ code: 0, stdout: help.stdout, stderr: "" });
  // And the runtime is really behind the dynamic import: a command without it fails.
  const command = await runTern(["models"], { env: ternEnv(), entry: alone });
  expect(command.code).not.toBe(0);
  expect(command.stderr).toMatch(/tern-app\.js/);
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
