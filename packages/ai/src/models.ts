import { readFileSync } from "node:fs";
import type { Api, Model, ModelAbilities, ModelPrices } from "./types.js";

/** How to reach a provider when a model names only the provider. */
interface ProviderDefaults {
  api: Api;
  baseUrl?: string;
}

const PROVIDERS: Record<string, ProviderDefaults> = {
  openai: { api: "openai-responses" },
  anthropic: { api: "anthropic-messages" },
  deepseek: { api: "openai-completions", baseUrl: "https://api.deepseek.com/v1" },
  groq: { api: "openai-completions", baseUrl: "https://api.groq.com/openai/v1" },
  xai: { api: "openai-completions", baseUrl: "https://api.x.ai/v1" },
  mistral: { api: "openai-completions", baseUrl: "https://api.mistral.ai/v1" },
  openrouter: { api: "openai-completions", baseUrl: "https://openrouter.ai/api/v1" },
  ollama: { api: "openai-completions", baseUrl: "http://127.0.0.1:11434/v1" },
  llamacpp: { api: "openai-completions", baseUrl: "http://127.0.0.1:8080/v1" },
  lmstudio: { api: "openai-completions", baseUrl: "http://127.0.0.1:1234/v1" },
  vllm: { api: "openai-completions", baseUrl: "http://127.0.0.1:8000/v1" },
};

const FULL: ModelAbilities = { toolCall: true, jsonMode: true, reasoning: true, images: true };
const NO_REASONING: ModelAbilities = { ...FULL, reasoning: false };
const ANTHROPIC: ModelAbilities = { toolCall: true, jsonMode: false, reasoning: true, images: true };

function entry(
  provider: string,
  id: string,
  name: string,
  contextWindow: number,
  maxOutputTokens: number,
  abilities: ModelAbilities,
  [input, output, cacheRead, cacheWrite]: [number, number, number, number],
): Model {
  const defaults = PROVIDERS[provider]!;
  return {
    id,
    name,
    provider,
    api: defaults.api,
    ...(defaults.baseUrl && { baseUrl: defaults.baseUrl }),
    contextWindow,
    maxOutputTokens,
    abilities,
    prices: { input, output, cacheRead, cacheWrite },
  };
}

// Prices in USD per million tokens: input, output, cache read, cache write. They change; a
// user's config file overrides any of them (`prices` on a model entry).
const BUILT_IN: Model[] = [
  entry("openai", "gpt-5.1", "GPT-5.1", 400_000, 128_000, FULL, [1.25, 10, 0.125, 0]),
  entry("openai", "gpt-5", "GPT-5", 400_000, 128_000, FULL, [1.25, 10, 0.125, 0]),
  entry("openai", "gpt-5-mini", "GPT-5 mini", 400_000, 128_000, FULL, [0.25, 2, 0.025, 0]),
  entry("openai", "gpt-5-nano", "GPT-5 nano", 400_000, 128_000, FULL, [0.05, 0.4, 0.005, 0]),
  entry("openai", "gpt-4.1", "GPT-4.1", 1_047_576, 32_768, NO_REASONING, [2, 8, 0.5, 0]),
  entry("openai", "gpt-4o-mini", "GPT-4o mini", 128_000, 16_384, NO_REASONING, [0.15, 0.6, 0.075, 0]),
  entry("openai", "o4-mini", "o4-mini", 200_000, 100_000, FULL, [1.1, 4.4, 0.275, 0]),
  entry("anthropic", "claude-opus-4-7", "Claude Opus 4.7", 200_000, 64_000, ANTHROPIC, [5, 25, 0.5, 6.25]),
  entry(
    "anthropic",
    "claude-sonnet-4-6",
    "Claude Sonnet 4.6",
    200_000,
    64_000,
    ANTHROPIC,
    [3, 15, 0.3, 3.75],
  ),
  entry("anthropic", "claude-haiku-4-5", "Claude Haiku 4.5", 200_000, 64_000, ANTHROPIC, [1, 5, 0.1, 1.25]),
  entry(
    "deepseek",
    "deepseek-chat",
    "DeepSeek V3 (chat)",
    128_000,
    8_192,
    { ...NO_REASONING, images: false },
    [0.28, 0.42, 0.028, 0],
  ),
  entry(
    "deepseek",
    "deepseek-reasoner",
    "DeepSeek V3 (reasoner)",
    128_000,
    64_000,
    { ...FULL, images: false },
    [0.28, 0.42, 0.028, 0],
  ),
  entry("xai", "grok-4", "Grok 4", 256_000, 64_000, FULL, [3, 15, 0.75, 0]),
  entry(
    "groq",
    "llama-3.3-70b-versatile",
    "Llama 3.3 70B (Groq)",
    131_072,
    32_768,
    { ...NO_REASONING, images: false },
    [0.59, 0.79, 0, 0],
  ),
  entry("mistral", "mistral-large-latest", "Mistral Large", 131_072, 16_384, NO_REASONING, [2, 6, 0, 0]),
];

/** What an unknown model on a compatible server gets: modest limits, native tools, no JSON mode, free. */
export const UNKNOWN_MODEL_DEFAULTS = {
  contextWindow: 32_768,
  maxOutputTokens: 4_096,
  abilities: { toolCall: true, jsonMode: false, reasoning: false, images: false } satisfies ModelAbilities,
  prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } satisfies ModelPrices,
};

/** A user's model entry: only `id` and `provider` are required; the rest falls back to defaults. */
export interface ModelConfig {
  id: string;
  provider: string;
  name?: string;
  api?: Api;
  baseUrl?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  abilities?: Partial<ModelAbilities>;
  prices?: Partial<ModelPrices>;
  headers?: Record<string, string>;
}

export class ModelRegistry {
  private readonly models = new Map<string, Model>();

  constructor(models: Model[] = BUILT_IN) {
    for (const model of models) this.add(model);
  }

  add(model: Model): void {
    this.models.set(key(model.provider, model.id), model);
  }

  list(provider?: string): Model[] {
    const all = [...this.models.values()];
    return provider ? all.filter((model) => model.provider === provider) : all;
  }

  get(provider: string, id: string): Model | undefined {
    return this.models.get(key(provider, id));
  }

  /**
   * A known model, or a usable one with safe defaults: unknown ids on compatible servers must
   * work, so they are never an error here. `overrides` (a base URL, say) win over both.
   */
  resolve(
    provider: string,
    id: string,
    overrides: Partial<Omit<ModelConfig, "id" | "provider">> = {},
  ): Model {
    const known = this.get(provider, id);
    if (known) return mergeConfig(known, overrides);
    const defaults = PROVIDERS[provider] ?? { api: "openai-completions" as const };
    const base: Model = {
      id,
      name: id,
      provider,
      api: defaults.api,
      ...(defaults.baseUrl && { baseUrl: defaults.baseUrl }),
      ...UNKNOWN_MODEL_DEFAULTS,
      abilities: { ...UNKNOWN_MODEL_DEFAULTS.abilities },
      prices: { ...UNKNOWN_MODEL_DEFAULTS.prices },
    };
    if (defaults.api === "anthropic-messages") base.abilities.images = true;
    return mergeConfig(base, overrides);
  }

  /** Adds user-defined models; returns readable problems instead of throwing. */
  addConfigs(configs: unknown): string[] {
    if (!Array.isArray(configs)) return ["models must be an array"];
    const problems: string[] = [];
    configs.forEach((config, index) => {
      const problem = configProblem(config);
      if (problem) problems.push(`models[${index}]: ${problem}`);
      else
        this.add(
          this.resolve((config as ModelConfig).provider, (config as ModelConfig).id, config as ModelConfig),
        );
    });
    return problems;
  }

  /** Reads `{ "models": [ModelConfig, ...] }` from a JSON file. A missing file is not a problem. */
  loadFile(path: string): string[] {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ENOENT"
        ? []
        : [`${path}: ${(error as Error).message}`];
    }
    try {
      const parsed = JSON.parse(text) as { models?: unknown };
      return this.addConfigs(parsed.models ?? []).map((problem) => `${path}: ${problem}`);
    } catch (error) {
      return [`${path}: not valid JSON (${(error as Error).message})`];
    }
  }
}

export function builtInModels(): Model[] {
  return BUILT_IN.map((model) => structuredClone(model));
}

export function providerDefaults(provider: string): ProviderDefaults | undefined {
  return PROVIDERS[provider];
}

function mergeConfig(model: Model, overrides: Partial<Omit<ModelConfig, "id" | "provider">>): Model {
  const { abilities, prices, ...rest } = overrides;
  const defined = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  return {
    ...model,
    ...defined,
    abilities: { ...model.abilities, ...abilities },
    prices: { ...model.prices, ...prices },
  };
}

const APIS: Api[] = ["openai-completions", "openai-responses", "anthropic-messages", "faux"];

function configProblem(config: unknown): string | undefined {
  if (config === null || typeof config !== "object") return "must be an object";
  const c = config as Record<string, unknown>;
  if (typeof c.id !== "string" || c.id === "") return "id must be a non-empty string";
  if (typeof c.provider !== "string" || c.provider === "") return "provider must be a non-empty string";
  if (c.api !== undefined && !APIS.includes(c.api as Api)) return `api must be one of ${APIS.join(", ")}`;
  if (c.baseUrl !== undefined && typeof c.baseUrl !== "string") return "baseUrl must be a string";
  for (const field of ["contextWindow", "maxOutputTokens"]) {
    const value = c[field];
    if (value !== undefined && (typeof value !== "number" || !(value > 0)))
      return `${field} must be a positive number`;
  }
  return undefined;
}

function key(provider: string, id: string): string {
  return `${provider}/${id}`;
}
