// A session remembers what continuing it needs: `tern run -s ID` and `tern run -c` go on with the
// provider, model and base URL (and loop settings) it was made with, no flags retyped; the key is
// never written down; an old session without the record gets a clear error. A recorded answer mode
// reaches the loop as the synthesis policy.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { reactOptions } from "../src/runtime/loop-options.js";
import { withSessionSettings } from "../src/runtime/session-settings.js";
import { textReply } from "./support/replies.js";
import { startScriptedModel } from "./support/scripted-model.js";
import { settingsFor } from "./support/settings.js";
import { ensureBuilt, runTern, tempDir, ternEnv } from "./support/tern.js";

beforeAll(ensureBuilt);

// Several tern processes a test: a ceiling for a loaded machine, not a deadline.
const CEILING = 300_000;

const KEY = "sk-mylab-do-not-write-0123456789";

/** The session files under `home` (one directory per workspace; the index is not one). */
function sessionFiles(home: string): string[] {
  const root = join(home, "sessions");
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((dir) =>
      readdirSync(join(root, dir.name))
        .filter((name) => name.endsWith(".jsonl"))
        .map((name) => join(root, dir.name, name)),
    );
}

function sessionFile(home: string): string {
  return sessionFiles(home)[0]!;
}

it(
  "run -s and run -c continue with the recorded provider, model and base URL; the key is not recorded",
  async () => {
    const server = await startScriptedModel([textReply("First."), textReply("Second."), textReply("Third.")]);
    const home = tempDir();
    const work = tempDir();
    const env = ternEnv({ TERN_HOME: home, MYLAB_API_KEY: KEY });
    const made = await runTern(
      [
        "run",
        "--provider",
        "mylab",
        "--model",
        "test-model",
        "--base-url",
        `${server.baseUrl}/v1`,
        "--strategy",
        "loop",
        "--answer-mode",
        "direct",
        "say one",
      ],
      { env, cwd: work },
    );
    expect(made.code, made.stderr).toBe(0);
    const file = sessionFile(home);
    const header = JSON.parse(readFileSync(file, "utf8").split("\n")[0]!) as {
      id: string;
      settings?: unknown;
    };
    expect(header.settings).toEqual({
      provider: "mylab",
      model: "test-model",
      baseUrl: `${server.baseUrl}/v1`,
      tools: "coding",
      toolMode: "auto",
      strategy: "loop",
      answerMode: "direct",
    });

    const again = await runTern(["run", "-s", header.id.slice(0, 8), "say two"], { env, cwd: work });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("Second.");
    const next = await runTern(["run", "-c", "say three"], { env, cwd: work });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain("Third.");
    expect(server.requests).toHaveLength(3);
    // All three turns went to the one session, and the key is nowhere in it.
    expect(sessionFiles(home)).toEqual([file]);
    expect(readFileSync(file, "utf8")).not.toContain(KEY);
  },
  CEILING,
);

it(
  "-c with no session in the directory, and an old session without the record, are clear errors",
  async () => {
    const server = await startScriptedModel([textReply("First.")]);
    const home = tempDir();
    const work = tempDir();
    const env = ternEnv({ TERN_HOME: home, MYLAB_API_KEY: KEY });
    const none = await runTern(["run", "-c", "go on"], { env, cwd: work });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no session of .* to continue/);

    const made = await runTern(
      ["run", "-p", "mylab", "-m", "test-model", "--base-url", `${server.baseUrl}/v1`, "say one"],
      { env, cwd: work },
    );
    expect(made.code, made.stderr).toBe(0);
    const file = sessionFile(home);
    const [first, ...rest] = readFileSync(file, "utf8").split("\n");
    const { settings: _, ...old } = JSON.parse(first!) as Record<string, unknown>;
    writeFileSync(file, [JSON.stringify(old), ...rest].join("\n"));
    const resumed = await runTern(["run", "-c", "say two"], { env, cwd: work });
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(
      /saved before tern recorded its base URL.*unknown provider "mylab".*--base-url/,
    );
    expect(server.requests).toHaveLength(1);
    // Flags still let it go on.
    const flagged = await runTern(["run", "-c", "--base-url", `${server.baseUrl}/v1`, "say two"], {
      env,
      cwd: work,
    });
    expect(flagged.stderr).not.toMatch(/unknown provider/);
  },
  CEILING,
);

it("a recorded answer mode reaches the loop (as the synthesis policy) unless --answer-mode or a --policy is given now", () => {
  const recorded = { provider: "mylab", model: "test-model", answerMode: "synthesize" };
  const resumed = withSessionSettings(settingsFor([]), recorded, () => {});
  expect(resumed.answerMode).toBe("synthesize");
  expect(reactOptions(resumed).answerMode).toBe("synthesize");
  const flagged = withSessionSettings(settingsFor(["--answer-mode", "direct"]), recorded, () => {});
  expect(reactOptions(flagged).answerMode).toBe("direct");
  const policy = withSessionSettings(settingsFor(["--policy", "synthesis=off"]), recorded, () => {});
  expect(reactOptions(policy).answerMode).toBe("direct");
});
