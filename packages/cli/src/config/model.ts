// Which model a command talks to: flags, environment and config name a provider and a model id;
// this turns them into an @tern/ai Model, or a one-line error naming the fix.
import {
  apiKeyVariable,
  builtInModels,
  type Model,
  ModelRegistry,
  providerDefaults,
  type Redactor,
  resolveApiKey,
} from "@tern/ai";
import { UsageError } from "../cli/errors.js";
import type { Home } from "./home.js";
import { nonEmpty } from "./values.js";

export interface ModelChoice {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

/** A provider's model when only the provider is named. */
const PROVIDER_DEFAULT_MODEL: Record<string, string> = {
  openai: "gpt-5-mini",
  anthropic: "claude-sonnet-4-6",
};

/** Tried in order when nothing names a model: the first provider whose key is set. */
const KEY_DEFAULTS: { variable: string; provider: string }[] = [
  { variable: "OPENAI_API_KEY", provider: "openai" },
  { variable: "ANTHROPIC_API_KEY", provider: "anthropic" },
];

/**
 * Whether tern knows a price for a provider's model: in the catalog or declared in config.json.
 * The runtime prices any other model at 0, which `run`, `chat` and `usage` show as "unknown".
 */
export function hasPrice(registry: ModelRegistry): (provider: string, model: string) => boolean {
  return (provider, model) => registry.get(provider, model) !== undefined;
}

/**
 * Built-in models plus the `models` of $TERN_HOME/config.json, from the parse `loadHome` made
 * (whose warnings were given already); problems with the entries go to `warn`.
 */
export function createRegistry(home: Home, warn: (message: string) => void): ModelRegistry {
  const registry = new ModelRegistry();
  const { path, config } = home.config;
  for (const problem of registry.addConfigs(config.models ?? [])) warn(`${path}: ${problem}`);
  return registry;
}

export function isKnownProvider(registry: ModelRegistry, provider: string): boolean {
  return providerDefaults(provider) !== undefined || registry.list(provider).length > 0;
}

export function knownProviders(registry: ModelRegistry): string[] {
  const names = new Set(registry.list().map((model) => model.provider));
  for (const name of ["ollama", "llamacpp", "lmstudio", "vllm", "openrouter"]) names.add(name);
  return [...names];
}

/**
 * Resolves the model. `fallback` (a resumed session's model) is used when neither a provider nor
 * a model is named. Throws UsageError naming the fix.
 */
export function chooseModel(
  registry: ModelRegistry,
  choice: ModelChoice,
  env: NodeJS.ProcessEnv,
  configPath: string,
  fallback?: { provider: string; modelId: string },
): Model {
  let provider = choice.provider;
  let id = choice.model;
  const baseUrl = choice.baseUrl;
  if (id !== undefined && provider === undefined) {
    const slash = id.indexOf("/");
    if (slash > 0 && isKnownProvider(registry, id.slice(0, slash))) {
      provider = id.slice(0, slash);
      id = id.slice(slash + 1);
    }
  }
  if (provider === undefined && id === undefined) {
    if (fallback) {
      if (fallback.provider === "faux")
        throw new UsageError(
          "this session was made by the demo's scripted model, which exists only inside `tern demo`; pass --provider and --model to go on with a real one",
        );
      provider = fallback.provider;
      id = fallback.modelId;
    } else {
      const found = KEY_DEFAULTS.find(({ variable }) => env[variable]);
      if (!found)
        throw new UsageError(
          "no model chosen: set OPENAI_API_KEY or ANTHROPIC_API_KEY, or pass --provider and --model " +
            "(e.g. --provider ollama --model qwen3), or set them in " +
            `${configPath}; \`tern demo\` runs offline without any`,
        );
      provider = found.provider;
    }
  }
  if (provider === undefined) {
    const matches = registry.list().filter((model) => model.id === id);
    if (matches.length === 1) provider = matches[0]!.provider;
    else if (matches.length > 1)
      throw new UsageError(
        `model "${id}" is served by ${matches.map((m) => m.provider).join(" and ")}; pass --provider`,
      );
    else if (baseUrl !== undefined) provider = "local";
    else
      throw new UsageError(
        `unknown model "${id}": pass --provider too (e.g. --provider ollama --model ${id}), or see tern models`,
      );
  }
  if (!isKnownProvider(registry, provider) && baseUrl === undefined)
    throw new UsageError(
      `unknown provider "${provider}": use one of ${knownProviders(registry).join(", ")}, ` +
        "or pass --base-url for any OpenAI-compatible server",
    );
  if (id === undefined) {
    id = PROVIDER_DEFAULT_MODEL[provider] ?? registry.list(provider)[0]?.id;
    if (id === undefined)
      throw new UsageError(
        `--model is required with --provider ${provider} (the model name the server serves)`,
      );
  }
  const catalogued = new Set(builtInModels().map((model) => model.provider));
  if (catalogued.has(provider) && !registry.get(provider, id) && baseUrl === undefined)
    throw new UsageError(
      `unknown model "${id}" for ${provider}: see tern models, or declare it under "models" in ${configPath}`,
    );
  return registry.resolve(provider, id, baseUrl !== undefined ? { baseUrl } : {});
}

/** What stands in for a key on a server that takes none (sent as a harmless bearer). */
const NO_KEY_NEEDED = "not-needed";

/**
 * The key to send: --api-key, the variable config.json names for the provider
 * (`providers.NAME.apiKeyEnv`), a placeholder for a provider config.json marks keyless, or the
 * provider's usual variable in the command's environment.
 */
export function explicitApiKey(
  model: Model,
  settings: { apiKey?: string; config: Home["config"] },
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (settings.apiKey !== undefined) return settings.apiKey;
  const provider = settings.config.config.providers?.[model.provider];
  if (provider?.apiKeyEnv) return nonEmpty(env[provider.apiKeyEnv]);
  if (provider?.keyless) return NO_KEY_NEEDED;
  // The host's environment, passed on: the library's own fallback reads process.env, which is
  // not this command's environment when tern runs inside another program.
  return nonEmpty(env[apiKeyVariable(model.provider)]);
}

/**
 * The literal secrets a model is used with: the key (from --api-key, the environment or config)
 * and the values of its configured headers. A session registers them, so a provider error that
 * echoes one never reaches the session file; `redactor` (the command's output) learns them too.
 */
export async function ensureApiKey(
  model: Model,
  apiKey: string | undefined,
  env: NodeJS.ProcessEnv,
  redactor?: Redactor,
): Promise<string[]> {
  const fromEnv = nonEmpty(env[apiKeyVariable(model.provider)]);
  const given = apiKey ?? fromEnv;
  const key = await resolveApiKey(model, given !== undefined ? { apiKey: given } : {});
  if (key === undefined)
    throw new UsageError(
      `no API key for ${model.provider}: set ${apiKeyVariable(model.provider)} or pass --api-key`,
    );
  // Not `key` itself: a keyless server's placeholder is no secret.
  return registered([apiKey, fromEnv, ...Object.values(model.headers ?? {})], redactor);
}

/** ensureApiKey, knowing config.json's provider settings (a named variable, keyless). */
export async function ensureConfiguredKey(
  model: Model,
  settings: { apiKey?: string; config: Home["config"]; redactor?: Redactor },
  env: NodeJS.ProcessEnv,
): Promise<string[]> {
  const apiKey = explicitApiKey(model, settings, env);
  const variable = settings.config.config.providers?.[model.provider]?.apiKeyEnv;
  const key = variable ? apiKey : await resolveApiKey(model, apiKey !== undefined ? { apiKey } : {});
  if (key === undefined)
    throw new UsageError(
      `no API key for ${model.provider}: set ${variable ?? apiKeyVariable(model.provider)} or pass --api-key` +
        (variable ? ` (${settings.config.path} names ${variable} for ${model.provider})` : ""),
    );
  // Not a keyless server's placeholder: that is no secret.
  const given = settings.apiKey ?? (variable ? apiKey : undefined);
  const fromEnv = env[apiKeyVariable(model.provider)];
  return registered([given, fromEnv, ...Object.values(model.headers ?? {})], settings.redactor);
}

/** The values that are set, told to the output's redactor. */
function registered(values: (string | undefined)[], redactor: Redactor | undefined): string[] {
  const secrets = values.filter((value): value is string => value !== undefined && value !== "");
  redactor?.add(secrets);
  return secrets;
}

export function modelLabel(model: Model): string {
  return `${model.provider}/${model.id}`;
}
