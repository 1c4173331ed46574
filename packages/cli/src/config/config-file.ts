// $TERN_HOME/config.json: defaults for the options, custom models (the `models` array, added to
// @tern/ai's ModelRegistry from this one parse) and per-provider key settings. A broken file is
// reported as warnings, once, never a crash: a bad field is ignored and the rest still applies.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { MODEL_ROLES, RUN_STRATEGIES } from "@tern/agent";
import { PERMISSION_MODES, SANDBOX_PROFILES } from "@tern/tools";

export type ToolMode = "native" | "json" | "auto";
export type AnswerMode = "direct" | "synthesize";
export type Toolset = "coding" | "none";

export const TOOL_MODES: readonly ToolMode[] = ["native", "json", "auto"];
export const ANSWER_MODES: readonly AnswerMode[] = ["direct", "synthesize"];
export const TOOLSETS: readonly Toolset[] = ["coding", "none"];
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high"] as const;

export interface RetryConfig {
  maxRetries?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

/** A provider's key: the variable that holds it, or none needed (a custom local server). */
export interface ProviderConfig {
  apiKeyEnv?: string;
  keyless?: boolean;
}

export interface TernConfig {
  provider?: string;
  model?: string;
  baseUrl?: string;
  mode?: string;
  allow?: string[];
  deny?: string[];
  tools?: string;
  toolMode?: string;
  answerMode?: string;
  maxTurns?: number;
  autopilot?: boolean;
  /** The loop policies on, off or tuned by name (config/policy-settings.ts checks the entries). */
  policies?: Record<string, unknown>;
  thinking?: string;
  system?: string;
  /** Command hooks by event (config/hooks.ts parses and checks the entries). */
  hooks?: Record<string, unknown>;
  /** false: do not load AGENTS.md and the like (--no-instructions). */
  instructions?: boolean;
  retry?: RetryConfig;
  models?: unknown[];
  providers?: Record<string, ProviderConfig>;
  sandbox?: string;
  allowNet?: boolean;
  /** Hosts sandboxed commands may reach through tern's proxy (`HOST[:PORT]`, `*.example.com`). */
  allowHosts?: string[];
  /** Hosts they may never reach; wins over allowHosts. */
  denyHosts?: string[];
  /** How prompts run: "loop", "plan" or "auto". */
  strategy?: string;
  /** Models for plan steps the planner marks "fast" or "reasoning" ("provider/id"). */
  roles?: Record<string, string>;
  /** The web_search tool's service; without it there is no web_search. */
  webSearch?: WebSearchConfig;
  /** Where sessions live: a postgres:// URL, or "file" (default). */
  store?: string;
}

/** `{ "kind": "searxng", "url": "http://localhost:8888" }` or `{ "kind": "brave", "url": "...", "apiKeyEnv": "BRAVE_API_KEY" }`. */
export interface WebSearchConfig {
  kind: "searxng" | "brave";
  url: string;
  apiKeyEnv?: string;
}

export interface LoadedConfig {
  path: string;
  config: TernConfig;
  warnings: string[];
}

export function ternHomeFrom(env: NodeJS.ProcessEnv): string {
  return env.TERN_HOME || join(homedir(), ".tern");
}

export function configPath(home: string): string {
  return join(home, "config.json");
}

type Check = (value: unknown) => boolean;
const isString: Check = (value) => typeof value === "string" && value !== "";
const isStrings: Check = (value) => Array.isArray(value) && value.every((item) => typeof item === "string");
const isCount: Check = (value) => Number.isInteger(value) && (value as number) > 0;
const isBoolean: Check = (value) => typeof value === "boolean";
const oneOf =
  (allowed: readonly string[]): Check =>
  (value) =>
    typeof value === "string" && allowed.includes(value);
const isProviders: Check = (value) =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((entry: ProviderConfig | null) => {
    if (typeof entry !== "object" || entry === null) return false;
    const { apiKeyEnv, keyless } = entry;
    return (apiKeyEnv === undefined || isString(apiKeyEnv)) && (keyless === undefined || isBoolean(keyless));
  });
const isRoles: Check = (value) =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  Object.entries(value).every(
    ([role, id]) => (MODEL_ROLES as readonly string[]).includes(role) && isString(id),
  );
const isObject: Check = (value) => typeof value === "object" && value !== null && !Array.isArray(value);
const isWebSearch: Check = (value) => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { kind, url, apiKeyEnv, ...rest } = value as Record<string, unknown>;
  return (
    (kind === "searxng" || kind === "brave") &&
    isString(url) &&
    URL.canParse(url as string) &&
    (apiKeyEnv === undefined || isString(apiKeyEnv)) &&
    Object.keys(rest).length === 0
  );
};
const isRetry: Check = (value) =>
  typeof value === "object" &&
  value !== null &&
  Object.values(value).every((item) => typeof item === "number" && item >= 0);

const FIELDS: Record<keyof TernConfig, [Check, string]> = {
  provider: [isString, "a string"],
  model: [isString, "a string"],
  baseUrl: [isString, "a string"],
  mode: [oneOf(PERMISSION_MODES), `one of ${PERMISSION_MODES.join(", ")}`],
  allow: [isStrings, "an array of rule strings"],
  deny: [isStrings, "an array of rule strings"],
  tools: [oneOf(TOOLSETS), `one of ${TOOLSETS.join(", ")}`],
  toolMode: [oneOf(TOOL_MODES), `one of ${TOOL_MODES.join(", ")}`],
  answerMode: [oneOf(ANSWER_MODES), `one of ${ANSWER_MODES.join(", ")}`],
  maxTurns: [isCount, "a positive integer"],
  autopilot: [isBoolean, "true or false"],
  policies: [isObject, 'an object of policies by name, each true, false or its settings ({ "after": 10 })'],
  thinking: [oneOf(THINKING_LEVELS), `one of ${THINKING_LEVELS.join(", ")}`],
  system: [isString, "a string"],
  instructions: [isBoolean, "true or false"],
  hooks: [isObject, "an object of hook lists by event (PreToolUse, PostToolUse, ...)"],
  retry: [isRetry, "an object of numbers (maxRetries, baseDelayMs, maxDelayMs)"],
  models: [Array.isArray, "an array of model entries"],
  providers: [isProviders, 'an object of { "apiKeyEnv": "VARIABLE", "keyless": true|false } by provider'],
  sandbox: [oneOf(SANDBOX_PROFILES), `one of ${SANDBOX_PROFILES.join(", ")}`],
  allowNet: [isBoolean, "true or false"],
  allowHosts: [isStrings, 'an array of hosts ("HOST[:PORT]", "*.example.com")'],
  denyHosts: [isStrings, 'an array of hosts ("HOST[:PORT]", "*.example.com")'],
  strategy: [oneOf(RUN_STRATEGIES), `one of ${RUN_STRATEGIES.join(", ")}`],
  store: [isString, 'a postgres:// URL or "file"'],
  roles: [isRoles, `an object of model ids ("provider/id") by role: ${MODEL_ROLES.join(", ")}`],
  webSearch: [
    isWebSearch,
    '{ "kind": "searxng" | "brave", "url": "http(s)://...", "apiKeyEnv"?: "VARIABLE" }',
  ],
};

export function loadConfig(home: string): LoadedConfig {
  const path = configPath(home);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const warnings = code === "ENOENT" ? [] : [`${path}: ${(error as Error).message}`];
    return { path, config: {}, warnings };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { path, config: {}, warnings: [`${path}: not valid JSON (${(error as Error).message}); ignored`] };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    return { path, config: {}, warnings: [`${path}: must hold a JSON object; ignored`] };
  const config: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const field = FIELDS[key as keyof TernConfig];
    if (!field) {
      warnings.push(`${path}: unknown setting "${key}" ignored (known: ${Object.keys(FIELDS).join(", ")})`);
      continue;
    }
    if (!field[0](value)) {
      warnings.push(
        `${path}: "${key}" must be ${field[1]}${typeof value === "string" ? ` (got ${JSON.stringify(value)})` : ""}; ignored`,
      );
      continue;
    }
    config[key] = value;
  }
  return { path, config: config as TernConfig, warnings };
}
