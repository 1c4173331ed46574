// $TERN_HOME/config.json: defaults for the options, and custom models (the `models` array is read
// by @tern/ai's ModelRegistry.loadFile). A broken file is reported as warnings, never a crash:
// the user can still list and show sessions with it.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export interface RetryConfig {
  maxRetries?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export interface TernConfig {
  provider?: string;
  model?: string;
  baseUrl?: string;
  mode?: string;
  allow?: string[];
  deny?: string[];
  toolMode?: string;
  answerMode?: string;
  maxTurns?: number;
  autopilot?: boolean;
  thinking?: string;
  system?: string;
  retry?: RetryConfig;
  models?: unknown[];
  sandbox?: string;
  allowNet?: boolean;
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
const isRetry: Check = (value) =>
  typeof value === "object" &&
  value !== null &&
  Object.values(value).every((item) => typeof item === "number" && item >= 0);

const FIELDS: Record<keyof TernConfig, [Check, string]> = {
  provider: [isString, "a string"],
  model: [isString, "a string"],
  baseUrl: [isString, "a string"],
  mode: [isString, "a string"],
  allow: [isStrings, "an array of rule strings"],
  deny: [isStrings, "an array of rule strings"],
  toolMode: [isString, "a string"],
  answerMode: [isString, "a string"],
  maxTurns: [isCount, "a positive integer"],
  autopilot: [isBoolean, "true or false"],
  thinking: [isString, "a string"],
  system: [isString, "a string"],
  retry: [isRetry, "an object of numbers (maxRetries, baseDelayMs, maxDelayMs)"],
  models: [Array.isArray, "an array of model entries"],
  sandbox: [isString, '"sandbox" or "off"'],
  allowNet: [isBoolean, "true or false"],
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
      warnings.push(`${path}: "${key}" must be ${field[1]}; ignored`);
      continue;
    }
    config[key] = value;
  }
  return { path, config: config as TernConfig, warnings };
}
