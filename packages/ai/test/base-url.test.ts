// Where each built-in provider sends a request: the model's baseUrl, else the host's base URL for
// the model's wire API (StreamOptions.baseUrls), else the vendor's. The environment plays no part:
// OPENAI_BASE_URL and ANTHROPIC_BASE_URL are the CLI's to map (packages/cli/src/config/library-options.ts).
import { afterEach, describe, expect, it, vi } from "vitest";
import { streamAnthropicMessages } from "../src/providers/anthropic-messages.js";
import { streamOpenAICompletions } from "../src/providers/openai-completions.js";
import { streamOpenAIResponses } from "../src/providers/openai-responses.js";
import type { Api, Model, ModelFetch, StreamFunction, StreamOptions } from "../src/types.js";
import { collect, hello } from "./support/provider-harness.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

const PROVIDERS: { api: Api; stream: StreamFunction; path: string; vendor: string }[] = [
  {
    api: "openai-completions",
    stream: streamOpenAICompletions,
    path: "/chat/completions",
    vendor: "https://api.openai.com/v1",
  },
  {
    api: "openai-responses",
    stream: streamOpenAIResponses,
    path: "/responses",
    vendor: "https://api.openai.com/v1",
  },
  {
    api: "anthropic-messages",
    stream: streamAnthropicMessages,
    path: "/v1/messages",
    vendor: "https://api.anthropic.com",
  },
];

function model(api: Api, baseUrl?: string): Model {
  return {
    id: "m",
    name: "m",
    api,
    provider: api === "anthropic-messages" ? "anthropic" : "openai",
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    contextWindow: 8_000,
    maxOutputTokens: 1_000,
    abilities: { toolCall: true, jsonMode: true, reasoning: false, images: false },
    prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
}

/** The URL the provider asked for; the request itself is refused, so nothing leaves the machine. */
async function requestedUrl(stream: StreamFunction, m: Model, options: StreamOptions = {}): Promise<string> {
  const urls: string[] = [];
  const fetch = (async (input: Parameters<ModelFetch>[0]) => {
    urls.push(String(input));
    throw new Error("not sent");
  }) as ModelFetch;
  const { message } = await collect(stream, m, hello, { apiKey: "k", ...options, fetch });
  expect(message.stopReason).toBe("error");
  expect(urls).toHaveLength(1);
  return urls[0]!;
}

describe.each(PROVIDERS)("$api base URL", ({ api, stream, path, vendor }) => {
  it("is the model's own baseUrl before the host's", async () => {
    const url = await requestedUrl(stream, model(api, "http://127.0.0.1:9/model"), {
      baseUrls: { [api]: "http://127.0.0.1:9/host" },
    });
    expect(url).toBe(`http://127.0.0.1:9/model${path}`);
  });

  it("is the host's base URL for the model's API when the model names none", async () => {
    const url = await requestedUrl(stream, model(api), {
      baseUrls: { [api]: "http://127.0.0.1:9/host/" },
    });
    expect(url).toBe(`http://127.0.0.1:9/host${path}`);
  });

  it("is the vendor's otherwise, whatever the environment says", async () => {
    vi.stubEnv("OPENAI_BASE_URL", "http://127.0.0.1:9/env");
    vi.stubEnv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/env");
    const other: Api = api === "anthropic-messages" ? "openai-completions" : "anthropic-messages";
    const url = await requestedUrl(stream, model(api), { baseUrls: { [other]: "http://127.0.0.1:9/other" } });
    expect(url).toBe(`${vendor}${path}`);
  });
});
