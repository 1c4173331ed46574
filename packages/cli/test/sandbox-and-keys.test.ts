// `tern run` and the bash sandbox: the header names the profile, --sandbox and config.json choose
// it, and a key passed with --api-key that a provider echoes in an error never reaches the
// session file.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

/** Every session file's text under a TERN_HOME. */
function sessionFiles(home: string): string {
  const dir = join(home, "sessions");
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => readFileSync(join(dir, name), "utf8"))
    .join("\n");
}

describe("the sandbox in tern run", () => {
  it("prints the profile chosen with --sandbox off in the header", async () => {
    const server = await startScriptedModel([textReply("Done.")]);
    const home = tempDir();
    const result = await runTern(["run", "--sandbox", "off", "hi"], {
      env: scriptedModelEnv(server, { TERN_HOME: home }),
      cwd: tempDir(),
    });
    expect(result.code).toBe(0);
    expect(result.stderr.split("\n")[0]).toMatch(/^tern · .* · permissions ask · sandbox off · /);
  });

  it('takes "sandbox": "off" and "allowNet" from config.json', async () => {
    const server = await startScriptedModel([textReply("Done.")]);
    const home = tempDir();
    writeFileSync(join(home, "config.json"), JSON.stringify({ sandbox: "off", allowNet: true }));
    const result = await runTern(["run", "hi"], {
      env: scriptedModelEnv(server, { TERN_HOME: home }),
      cwd: tempDir(),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("· sandbox off ·");
  });

  it("exits 2 for an unknown profile", async () => {
    const result = await runTern(["run", "--sandbox", "loose", "hi"], {
      env: scriptedModelEnv({ baseUrl: "http://127.0.0.1:9" }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--sandbox must be one of sandbox, off \(got "loose"\)/);
  });

  it("runs bash through the chosen profile (off: the command sees the host's /tmp)", async () => {
    const work = tempDir();
    const marker = join(tempDir(), "seen-from-bash");
    const server = await startScriptedModel([
      toolReply([{ name: "bash", args: { command: `touch '${marker}'` } }]),
      textReply("Done."),
    ]);
    const home = tempDir();
    const result = await runTern(["run", "--sandbox", "off", "--mode", "bypass", "touch it"], {
      env: scriptedModelEnv(server, { TERN_HOME: home }),
      cwd: work,
    });
    expect(result.code).toBe(0);
    expect(readdirSync(join(marker, ".."))).toContain("seen-from-bash");
  });
});

describe("keys never reach the session file", () => {
  it("redacts a --api-key that the provider echoes in an error body", async () => {
    // No known key shape and in no variable: only the runtime's registration can catch it.
    const key = "tern-test-key-Zq81mXv07Lp";
    const server = await startScriptedModel([
      {
        kind: "json",
        status: 401,
        body: { error: { message: `Incorrect API key provided: ${key}.`, type: "invalid_request_error" } },
      },
    ]);
    const home = tempDir();
    writeFileSync(join(home, "config.json"), JSON.stringify({ retry: { maxRetries: 0 } }));
    const result = await runTern(["run", "--api-key", key, "hi"], {
      env: scriptedModelEnv(server, { TERN_HOME: home }),
      cwd: tempDir(),
    });
    expect(result.code).toBe(1);
    // The scripted server really saw the key, and the failure was recorded.
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
    const saved = sessionFiles(home);
    expect(saved).toContain("Incorrect API key provided: [REDACTED]");
    expect(saved).not.toContain(key);
  });
});
