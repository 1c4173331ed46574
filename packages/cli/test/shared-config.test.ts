// One configuration for `run`, `chat` and `serve`, through the real `tern` command: the same
// validation (exit 2), the same keys (a provider's variable named in config.json, a keyless
// custom provider), the same precedence (environment and config.json reach `serve` too), and
// config.json problems as one warning each, never a crash. Also the `serve` papercuts: --help,
// the READMEs.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ScriptServer, serveScript } from "@tern/ai/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textReply } from "./support/replies.js";
import { promptNewSession, startServe } from "./support/serve.js";
import { runTern, tempDir, ternEnv } from "./support/tern.js";

let model: ScriptServer;

beforeAll(async () => {
  model = await serveScript();
});

afterAll(async () => {
  await model.close();
});

function homeWith(config: unknown): string {
  const home = tempDir();
  writeFileSync(join(home, "config.json"), typeof config === "string" ? config : JSON.stringify(config));
  return home;
}

const COMMANDS = [["run", "hi"], ["chat"], ["serve", "--port", "0"]] as const;

describe("one set of flags, one validation", () => {
  it.each([
    ["--tools", "everything", "--tools must be one of coding, none"],
    ["--mode", "yolo", "--mode must be one of ask, accept-edits, read-only, bypass"],
    ["--answer-mode", "poem", "--answer-mode must be one of direct, synthesize"],
  ])("%s %s is a usage error in run, chat and serve", async (flag, value, message) => {
    for (const command of COMMANDS) {
      const result = await runTern(
        [...command, flag, value, "--base-url", model.providerUrl, "--model", "m"],
        {
          env: ternEnv({ TERN_HOME: tempDir() }),
        },
      );
      expect(result.code, command[0]).toBe(2);
      expect(result.stderr).toContain(message);
    }
  });

  it("serve refuses to start without a key for a keyed provider, saying which", async () => {
    const result = await runTern(["serve", "--port", "0", "--provider", "anthropic"], {
      env: ternEnv({ TERN_HOME: tempDir() }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no API key for anthropic: set ANTHROPIC_API_KEY");
  });

  it("serve takes the provider, model and base URL from the environment and from config.json", async () => {
    model.push(textReply("From the environment."), textReply("From the config."));
    const fromEnv = await startServe(["--port", "0", "--home", tempDir(), "--cwd", tempDir()], {
      TERN_BASE_URL: model.providerUrl,
      TERN_MODEL: "scripted-env",
    });
    expect(await answerOf(fromEnv.base)).toBe("From the environment.");
    expect((model.requests.at(-1)!.body as { model: string }).model).toBe("scripted-env");
    const home = homeWith({ baseUrl: model.providerUrl, model: "scripted-config", tools: "none" });
    const fromConfig = await startServe(["--port", "0", "--home", home, "--cwd", tempDir()]);
    expect(await answerOf(fromConfig.base)).toBe("From the config.");
    const body = model.requests.at(-1)!.body as { model: string; tools?: unknown[] };
    expect(body.model).toBe("scripted-config");
    expect(body.tools ?? []).toEqual([]);
  });
});

describe("keys from config.json", () => {
  it("a provider marked keyless works in run, chat and serve with no key set", async () => {
    const home = homeWith({ providers: { myserver: { keyless: true } } });
    const flags = ["--provider", "myserver", "--base-url", model.providerUrl, "--model", "m"];
    model.push(textReply("run ok"), textReply("chat ok"), textReply("serve ok"));
    const env = ternEnv({ TERN_HOME: home });
    const run = await runTern(["run", ...flags, "hi"], { env, cwd: tempDir() });
    expect(run.stdout).toContain("run ok");
    const chat = await runTern(["chat", ...flags], { env, cwd: tempDir(), input: "hi\n" });
    expect(chat.stdout).toContain("chat ok");
    const served = await startServe(["--port", "0", ...flags, "--home", home, "--cwd", tempDir()]);
    expect(await answerOf(served.base)).toBe("serve ok");
    // Without the mark, the same provider needs a key.
    const keyed = await runTern(["run", ...flags, "hi"], { env: ternEnv({ TERN_HOME: tempDir() }) });
    expect(keyed.code).toBe(2);
    expect(keyed.stderr).toContain("no API key for myserver: set MYSERVER_API_KEY");
  });

  it("uses the variable config.json names for a provider's key, and names it when it is unset", async () => {
    const home = homeWith({ providers: { myserver: { apiKeyEnv: "MY_SERVER_TOKEN" } } });
    const flags = ["--provider", "myserver", "--base-url", model.providerUrl, "--model", "m"];
    const missing = await runTern(["serve", "--port", "0", ...flags], { env: ternEnv({ TERN_HOME: home }) });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no API key for myserver: set MY_SERVER_TOKEN");
    model.push(textReply("keyed"));
    const run = await runTern(["run", ...flags, "hi"], {
      env: ternEnv({ TERN_HOME: home, MY_SERVER_TOKEN: "secret-token" }),
      cwd: tempDir(),
    });
    expect(run.stdout).toContain("keyed");
    expect(model.requests.at(-1)!.headers.authorization).toBe("Bearer secret-token");
  });
});

describe("a broken config.json never crashes", () => {
  it('warns once about "mode": "yolo", ignores it and runs in ask mode', async () => {
    const home = homeWith({ mode: "yolo" });
    model.push(textReply("still works"));
    const result = await runTern(["run", "--base-url", model.providerUrl, "--model", "m", "hi"], {
      env: ternEnv({ TERN_HOME: home }),
      cwd: tempDir(),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("still works");
    expect(result.stderr.match(/"mode" must be one of ask, accept-edits, read-only, bypass/g)).toHaveLength(
      1,
    );
    expect(result.stderr).toContain("permissions ask");
  });

  it("warns once about a file that is not JSON", async () => {
    const home = homeWith("{ not json");
    model.push(textReply("fine"));
    const result = await runTern(["run", "--base-url", model.providerUrl, "--model", "m", "hi"], {
      env: ternEnv({ TERN_HOME: home }),
      cwd: tempDir(),
    });
    expect(result.code).toBe(0);
    expect(result.stderr.match(/not valid JSON/g)).toHaveLength(1);
  });
});

describe("serve papercuts", () => {
  it("tern serve --help prints the serve usage", async () => {
    for (const args of [
      ["serve", "--help"],
      ["serve", "-h"],
      ["help", "serve"],
    ]) {
      const result = await runTern(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("Usage: tern serve");
      expect(result.stdout).toContain("--allow-origin");
    }
  });

  it("both READMEs list tern serve, and the server README gives the real command", () => {
    const root = fileURLToPath(new URL("../../../", import.meta.url));
    const read = (path: string) => readFileSync(join(root, path), "utf8");
    expect(read("README.md")).toMatch(/`serve`/);
    expect(read("README.md")).toContain("tern serve");
    expect(read("packages/cli/README.md")).toMatch(/^\| `tern serve/m);
    expect(read("packages/server/README.md")).not.toContain("node main.js");
    expect(read("packages/server/README.md")).toContain("tern serve --");
  });
});

async function answerOf(base: string): Promise<string> {
  const frames = await promptNewSession(base, "hi");
  return String(frames.at(-1)?.data.answer);
}
