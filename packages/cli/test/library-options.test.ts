// The CLI is the host that maps its environment onto library options (config/library-options.ts):
// each mapping on its own, and the base URLs end to end, where the model's own base URL (here
// --base-url / TERN_BASE_URL) still wins over OPENAI_BASE_URL.
import { serveScript } from "@tern/ai/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  baseUrlsFrom,
  captureContentFrom,
  graphileErrorsFrom,
  instructionsCapFrom,
} from "../src/config/library-options.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir, ternEnv } from "./support/tern.js";

describe("environment → library options", () => {
  it("maps OPENAI_BASE_URL onto both OpenAI wire APIs and ANTHROPIC_BASE_URL onto Messages", () => {
    expect(baseUrlsFrom({})).toEqual({});
    expect(baseUrlsFrom({ OPENAI_BASE_URL: "", ANTHROPIC_BASE_URL: " " })).toEqual({});
    expect(baseUrlsFrom({ OPENAI_BASE_URL: "http://o/v1", ANTHROPIC_BASE_URL: "http://a" })).toEqual({
      "openai-completions": "http://o/v1",
      "openai-responses": "http://o/v1",
      "anthropic-messages": "http://a",
    });
  });

  it("caps instructions by TERN_INSTRUCTIONS_MAX_BYTES; a bad value is a warning and no cap", () => {
    expect(instructionsCapFrom({})).toEqual({ cap: { maxBytesSetting: "TERN_INSTRUCTIONS_MAX_BYTES" } });
    expect(instructionsCapFrom({ TERN_INSTRUCTIONS_MAX_BYTES: "51" }).cap.maxBytes).toBe(51);
    const bad = instructionsCapFrom({ TERN_INSTRUCTIONS_MAX_BYTES: "lots" });
    expect(bad.cap.maxBytes).toBeUndefined();
    expect(bad.warning).toMatch(/TERN_INSTRUCTIONS_MAX_BYTES must be a positive whole number.*"lots"/);
  });

  it("turns content capture on from TERN_OTEL_CAPTURE_CONTENT or the GenAI instrumentations' variable", () => {
    expect(captureContentFrom({})).toBe(false);
    expect(captureContentFrom({ TERN_OTEL_CAPTURE_CONTENT: "true" })).toBe(true);
    expect(captureContentFrom({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "1" })).toBe(true);
    expect(captureContentFrom({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "false" })).toBe(false);
    // tern's own variable wins.
    expect(
      captureContentFrom({
        TERN_OTEL_CAPTURE_CONTENT: "0",
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
      }),
    ).toBe(false);
  });

  it("writes graphile-worker's errors only under TERN_CLUSTER_DEBUG", () => {
    const written: string[] = [];
    expect(graphileErrorsFrom({}, (text) => written.push(text))).toBeUndefined();
    graphileErrorsFrom({ TERN_CLUSTER_DEBUG: "1" }, (text) => written.push(text))?.("job failed");
    expect(written).toEqual(["graphile: job failed\n"]);
  });
});

describe("base URLs from the environment, end to end", () => {
  beforeAll(ensureBuilt);
  const closing: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const server of closing.splice(0)) await server.close();
  });

  it("sends an OpenAI model without a base URL of its own to OPENAI_BASE_URL", async () => {
    const server = await serveScript(["Hello from the gateway."], { wire: "openai-responses" });
    closing.push(server);
    const env = ternEnv({
      TERN_HOME: tempDir(),
      TERN_PROVIDER: "openai",
      TERN_MODEL: "gpt-5-mini",
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: server.providerUrl,
    });
    const result = await runTern(["run", "hi", "--tools", "none"], { env, cwd: tempDir() });
    expect(result.stderr).not.toMatch(/tern: /);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Hello from the gateway.\n");
    expect(server.requests.map((request) => request.url)).toEqual(["/v1/responses"]);
  });

  it("sends an Anthropic model without a base URL of its own to ANTHROPIC_BASE_URL", async () => {
    const server = await serveScript(["Hello from the proxy."], { wire: "anthropic-messages" });
    closing.push(server);
    const env = ternEnv({
      TERN_HOME: tempDir(),
      TERN_PROVIDER: "anthropic",
      ANTHROPIC_API_KEY: "sk-ant-test",
      ANTHROPIC_BASE_URL: server.providerUrl,
    });
    const result = await runTern(["run", "hi", "--tools", "none"], { env, cwd: tempDir() });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Hello from the proxy.\n");
    expect(server.requests.map((request) => request.url)).toEqual(["/v1/messages"]);
  });

  it("keeps the model's own base URL (TERN_BASE_URL) before OPENAI_BASE_URL", async () => {
    const model = await startScriptedModel(["From the model's server."]);
    const gateway = await startScriptedModel(["From the gateway."]);
    const env = scriptedModelEnv(model, { OPENAI_BASE_URL: `${gateway.baseUrl}/v1` });
    const result = await runTern(["run", "hi", "--tools", "none"], { env, cwd: tempDir() });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("From the model's server.\n");
    expect(gateway.requests).toEqual([]);
  });
});
