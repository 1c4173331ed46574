// Settings, the config file and model resolution, in process: precedence, validation, and the
// one-line errors that name the fix.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ModelRegistry } from "@tern/ai";
import { describe, expect, it } from "vitest";
import { AGENT_OPTIONS, closest, parseCommandArgs } from "../src/cli/args.js";
import { UsageError } from "../src/cli/errors.js";
import { loadConfig } from "../src/config/config-file.js";
import { loadHome } from "../src/config/home.js";
import { chooseModel, createRegistry } from "../src/config/model.js";
import { colorEnabled, createStyle, visibleWidth } from "../src/render/style.js";
import { settingsFor } from "./support/settings.js";
import { tempDir } from "./support/tern.js";

describe("settings", () => {
  it("takes flags over the environment over the config file over defaults", () => {
    const config = { provider: "ollama", model: "from-config", mode: "accept-edits", maxTurns: 7 };
    expect(settingsFor([], {}, config)).toMatchObject({
      provider: "ollama",
      model: "from-config",
      mode: "accept-edits",
      maxTurns: 7,
      toolMode: "auto",
      answerMode: "direct",
    });
    expect(settingsFor([], { TERN_MODEL: "from-env" }, config)).toMatchObject({
      model: "from-env",
      explicitModel: false,
    });
    expect(
      settingsFor(["-m", "from-flag", "--max-turns", "3"], { TERN_MODEL: "from-env" }, config),
    ).toMatchObject({
      model: "from-flag",
      maxTurns: 3,
      explicitModel: true,
    });
    expect(settingsFor([])).toMatchObject({
      mode: "ask",
      maxTurns: 50,
      policies: expect.objectContaining({ autopilot: expect.objectContaining({ on: false }) }),
      allow: [],
      deny: [],
    });
  });

  it("adds rules from the config and the flags, and rejects malformed ones", () => {
    const settings = settingsFor(
      ["--allow-tool", "bash(npm test:*)"],
      {},
      { allow: ["read"], deny: ["bash(rm -rf:*)"] },
    );
    expect(settings.allow).toEqual(["read", "bash(npm test:*)"]);
    expect(settings.deny).toEqual(["bash(rm -rf:*)"]);
    expect(() => settingsFor(["--deny-tool", "bash(rm"])).toThrow(UsageError);
  });

  it("validates values with messages that name the flag", () => {
    expect(() => settingsFor(["--max-turns", "0"])).toThrow(
      '--max-turns must be a positive whole number (got "0")',
    );
    expect(() => settingsFor(["--answer-mode", "poem"])).toThrow(
      "--answer-mode must be one of direct, synthesize",
    );
    expect(() => settingsFor(["--mode", "yolo"])).toThrow(
      "--mode must be one of ask, accept-edits, read-only, bypass",
    );
    expect(() => settingsFor(["--base-url", "localhost:11434"])).toThrow("--base-url must be an http(s) URL");
    expect(() => settingsFor(["--cwd", "/no/such/dir"])).toThrow("--cwd /no/such/dir: no such directory");
  });

  it("reports a broken config file as warnings and keeps going", () => {
    const home = tempDir();
    writeFileSync(join(home, "config.json"), JSON.stringify({ maxTurns: "ten", colour: "blue", model: "m" }));
    const loaded = loadConfig(home);
    expect(loaded.config).toEqual({ model: "m" });
    expect(loaded.warnings).toEqual([
      `${join(home, "config.json")}: "maxTurns" must be a positive integer (got "ten"); ignored`,
      expect.stringMatching(/unknown setting "colour" ignored/),
    ]);
    writeFileSync(join(home, "config.json"), "{ not json");
    expect(loadConfig(home).warnings[0]).toMatch(/not valid JSON .*; ignored$/);
  });
});

describe("parseCommandArgs", () => {
  it("suggests the closest option and keeps one line", () => {
    expect(() => parseCommandArgs("run", ["--modle", "x"], AGENT_OPTIONS)).toThrow(
      'unknown option --modle for "tern run"; did you mean --model? (see tern run --help)',
    );
    expect(() => parseCommandArgs("run", ["--model"], AGENT_OPTIONS)).toThrow(
      "option --model needs a value; see tern run --help",
    );
    expect(() => parseCommandArgs("run", ["--autopilot=yes"], AGENT_OPTIONS)).toThrow(
      "option --autopilot takes no value",
    );
    expect(closest("sesion", ["session", "cwd"])).toBe("session");
    expect(closest("zzz", ["session", "cwd"])).toBeUndefined();
  });
});

describe("chooseModel", () => {
  const registry = new ModelRegistry();
  const choose = (
    choice: Parameters<typeof chooseModel>[1],
    env: NodeJS.ProcessEnv = {},
    fallback?: { provider: string; modelId: string },
  ) => chooseModel(registry, choice, env, "/home/u/.tern/config.json", fallback);

  it("resolves provider/id, a catalogued id alone, and provider defaults", () => {
    expect(choose({ model: "anthropic/claude-haiku-4-5" })).toMatchObject({
      provider: "anthropic",
      id: "claude-haiku-4-5",
    });
    expect(choose({ model: "gpt-5-mini" })).toMatchObject({ provider: "openai", id: "gpt-5-mini" });
    expect(choose({ provider: "anthropic" })).toMatchObject({ id: "claude-sonnet-4-6" });
    expect(choose({}, { ANTHROPIC_API_KEY: "k" })).toMatchObject({ provider: "anthropic" });
    expect(choose({}, { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k" })).toMatchObject({
      provider: "openai",
      id: "gpt-5-mini",
    });
  });

  it("keeps the provider's API with a --base-url (a proxy for Anthropic stays Anthropic Messages)", () => {
    expect(
      choose({ provider: "anthropic", model: "claude-sonnet-4-6", baseUrl: "http://127.0.0.1:9000/v1" }),
    ).toMatchObject({ api: "anthropic-messages", baseUrl: "http://127.0.0.1:9000/v1" });
  });

  it("accepts any id on local servers and custom base URLs", () => {
    expect(choose({ provider: "ollama", model: "qwen3:8b" })).toMatchObject({
      api: "openai-completions",
      baseUrl: "http://127.0.0.1:11434/v1",
    });
    expect(
      choose({ provider: "together", model: "x", baseUrl: "https://api.together.xyz/v1" }),
    ).toMatchObject({
      provider: "together",
      baseUrl: "https://api.together.xyz/v1",
    });
    expect(choose({ model: "mystery", baseUrl: "http://127.0.0.1:9/v1" })).toMatchObject({
      provider: "local",
    });
  });

  it("uses a resumed session's model unless told otherwise, but not the demo's scripted one", () => {
    expect(choose({}, {}, { provider: "ollama", modelId: "qwen3" })).toMatchObject({
      provider: "ollama",
      id: "qwen3",
    });
    expect(() => choose({}, {}, { provider: "faux", modelId: "scripted-demo-model" })).toThrow(
      /scripted model/,
    );
  });

  it("names the fix for what it cannot resolve", () => {
    expect(() => choose({})).toThrow(/^no model chosen: set OPENAI_API_KEY or ANTHROPIC_API_KEY/);
    expect(() => choose({ provider: "nope", model: "x" })).toThrow(
      /^unknown provider "nope": use one of .*or pass --base-url/,
    );
    expect(() => choose({ model: "openai/gpt-9" })).toThrow(
      'unknown model "gpt-9" for openai: see tern models, or declare it under "models" in /home/u/.tern/config.json',
    );
    expect(() => choose({ model: "who-knows" })).toThrow(/^unknown model "who-knows": pass --provider too/);
    expect(() => choose({ provider: "ollama" })).toThrow("--model is required with --provider ollama");
  });

  it("knows the config file's models", () => {
    const home = tempDir();
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ models: [{ id: "gpt-6-preview", provider: "openai", contextWindow: 1000 }] }),
    );
    const warnings: string[] = [];
    const withConfig = createRegistry(loadHome({ env: { TERN_HOME: home }, cwd: home }), (w) =>
      warnings.push(w),
    );
    expect(warnings).toEqual([]);
    expect(chooseModel(withConfig, { model: "openai/gpt-6-preview" }, {}, "c")).toMatchObject({
      contextWindow: 1000,
    });
  });
});

describe("colour", () => {
  it("only on a terminal, never with NO_COLOR, forced with FORCE_COLOR", () => {
    expect(colorEnabled({ isTTY: true }, {})).toBe(true);
    expect(colorEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: "" })).toBe(true);
    expect(colorEnabled({ isTTY: true }, { TERM: "dumb" })).toBe(false);
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: "1" })).toBe(true);
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: "1", NO_COLOR: "1" })).toBe(false);
    expect(createStyle(false).red("x")).toBe("x");
    expect(createStyle(true).red("x")).toBe("\u001b[31mx\u001b[39m");
    expect(visibleWidth(createStyle(true).bold("ab界"))).toBe(4);
  });
});
