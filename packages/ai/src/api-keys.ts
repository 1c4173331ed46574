import type { Model, StreamOptions } from "./types.js";

const KEY_VARIABLES: Record<string, string> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  deepseek: "DEEPSEEK_API_KEY",
  groq: "GROQ_API_KEY",
  xai: "XAI_API_KEY",
  mistral: "MISTRAL_API_KEY",
  openrouter: "OPENROUTER_API_KEY",
};

/** Servers that run on the user's machine and take no key. */
const KEYLESS_PROVIDERS = new Set(["ollama", "llamacpp", "lmstudio", "vllm", "local", "faux"]);

export function apiKeyVariable(provider: string): string {
  return KEY_VARIABLES[provider] ?? `${provider.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_API_KEY`;
}

/** options.apiKey, then the getApiKey hook, then the environment; undefined when none is found. */
export async function resolveApiKey(model: Model, options: StreamOptions): Promise<string | undefined> {
  if (options.apiKey) return options.apiKey;
  const fromHook = await options.getApiKey?.(model.provider);
  if (fromHook) return fromHook;
  const fromEnv = process.env[apiKeyVariable(model.provider)];
  if (fromEnv) return fromEnv;
  return KEYLESS_PROVIDERS.has(model.provider) ? "not-needed" : undefined;
}

export function missingKeyMessage(model: Model): string {
  return `No API key for provider "${model.provider}": set ${apiKeyVariable(model.provider)} or pass apiKey`;
}
