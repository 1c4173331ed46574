import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ModelRegistry, UNKNOWN_MODEL_DEFAULTS } from "../src/models.js";

describe("model registry", () => {
  it("knows current major models with prices and abilities", () => {
    const registry = new ModelRegistry();
    const sonnet = registry.get("anthropic", "claude-sonnet-4-6");
    expect(sonnet).toMatchObject({
      api: "anthropic-messages",
      abilities: { toolCall: true, jsonMode: false },
    });
    expect(sonnet?.prices.input).toBe(3);
    expect(registry.list("openai").map((m) => m.api)).toEqual(
      registry.list("openai").map(() => "openai-responses"),
    );
  });

  it("gives unknown ids on compatible servers safe defaults", () => {
    const model = new ModelRegistry().resolve("ollama", "qwen3:8b");
    expect(model).toMatchObject({
      id: "qwen3:8b",
      provider: "ollama",
      api: "openai-completions",
      baseUrl: "http://127.0.0.1:11434/v1",
      contextWindow: UNKNOWN_MODEL_DEFAULTS.contextWindow,
      abilities: { toolCall: true, jsonMode: false },
    });
    expect(new ModelRegistry().resolve("mine", "x", { baseUrl: "http://127.0.0.1:9/v1" }).baseUrl).toBe(
      "http://127.0.0.1:9/v1",
    );
  });

  it("loads user models from a config file and reports bad entries without throwing", () => {
    const dir = mkdtempSync(join(tmpdir(), "tern-models-"));
    const file = join(dir, "models.json");
    writeFileSync(
      file,
      JSON.stringify({
        models: [
          { id: "my-llama", provider: "llamacpp", contextWindow: 8192, abilities: { toolCall: false } },
          { id: "", provider: "x" },
          { id: "y", provider: "x", api: "carrier-pigeon" },
        ],
      }),
    );
    const registry = new ModelRegistry();
    const problems = registry.loadFile(file);
    expect(problems).toEqual([
      `${file}: models[1]: id must be a non-empty string`,
      `${file}: models[2]: api must be one of openai-completions, openai-responses, anthropic-messages, faux`,
    ]);
    expect(registry.get("llamacpp", "my-llama")).toMatchObject({
      contextWindow: 8192,
      baseUrl: "http://127.0.0.1:8080/v1",
      abilities: { toolCall: false, images: false },
    });
    expect(registry.loadFile(join(dir, "missing.json"))).toEqual([]);
    writeFileSync(file, "{ nope");
    expect(registry.loadFile(file)[0]).toMatch(/not valid JSON/);
  });
});
