// The agent options of `run`, `chat` and `serve`, from flags, then the environment, then
// $TERN_HOME/config.json, then defaults. Everything is validated here so a bad value fails before
// anything starts. A new agent option is one entry in AGENT_OPTIONS (cli/args.ts), one field
// here, and one help line: all three commands take it from there.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { type ModelRole, RUN_STRATEGIES, type RunStrategy } from "@tern/agent";
import type { Redactor, ThinkingLevel } from "@tern/ai";
import {
  PERMISSION_MODES,
  type PermissionMode,
  parseHostPattern,
  parseRule,
  SANDBOX_PROFILES,
  type SandboxProfile,
} from "@tern/tools";
import { listOption, type OptionValues, stringOption } from "../cli/args.js";
import { UsageError } from "../cli/errors.js";
import { type CassetteSettings, resolveCassetteSettings } from "./cassette-settings.js";
import {
  ANSWER_MODES,
  type AnswerMode,
  type RetryConfig,
  THINKING_LEVELS,
  TOOL_MODES,
  TOOLSETS,
  type ToolMode,
  type Toolset,
} from "./config-file.js";
import type { Environment, Home } from "./home.js";
import { type McpSettings, resolveMcpSettings } from "./mcp-settings.js";
import { type PolicySettings, resolvePolicies } from "./policy-settings.js";
import { storeUrlFrom } from "./store.js";
import { choice, nonEmpty, positiveInteger } from "./values.js";

export { ANSWER_MODES, type AnswerMode, TOOL_MODES, TOOLSETS, type ToolMode, type Toolset };
export const DEFAULT_MAX_TURNS = 50;
/** Overrides the agent library's DEFAULT_MAX_SUBAGENT_DEPTH (a whole number, at least 1). */
export const MAX_SUBAGENT_DEPTH_ENV = "TERN_MAX_SUBAGENT_DEPTH";

export interface AgentSettings extends Home {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  /** --provider or --model was given: it wins over the model a resumed session used. */
  explicitModel: boolean;
  /** The options given on the command line (they win over what a resumed session recorded). */
  flags: string[];
  /** The built-in coding tools (default), or none (a plain chat). */
  tools?: Toolset;
  toolMode: ToolMode;
  /** "synthesize" exactly when the synthesis policy is on (the older name of that switch). */
  answerMode: AnswerMode;
  maxTurns: number;
  /** The loop policies, on or off and tuned: --policy, "policies" in config.json, REACT_* variables. */
  policies: PolicySettings;
  /** TERN_MAX_SUBAGENT_DEPTH: how deep sub-agents may nest (default: the agent library's). */
  maxSubagentDepth?: number;
  thinking?: ThinkingLevel;
  system?: string;
  /** Load project instructions (AGENTS.md...): off with --no-instructions / "instructions": false. */
  instructions: boolean;
  cwd: string;
  /** --cwd was given: it wins over a resumed session's directory. */
  explicitCwd: boolean;
  sessionId?: string;
  mode: PermissionMode;
  allow: string[];
  deny: string[];
  retry?: RetryConfig;
  debug: boolean;
  /** How `bash` is confined: --sandbox / "sandbox" in config.json; default "sandbox". */
  sandbox: SandboxProfile;
  /** --allow-net / "allowNet": sandboxed commands may use all of the network. */
  allowNet: boolean;
  /** --allow-host / "allowHosts": the hosts sandboxed commands may reach through tern's proxy. */
  allowHosts: string[];
  /** --deny-host / "denyHosts": hosts they may never reach (wins over allowHosts). */
  denyHosts: string[];
  /** --strategy / "strategy": prompts run as one loop (default), a plan, or the router's choice. */
  strategy: RunStrategy;
  /** "roles" in config.json: the models of plan steps hinted "fast" or "reasoning". */
  roles: Partial<Record<ModelRole, string>>;
  /** --record / --replay: model exchanges go to or come from a cassette file. */
  cassette?: CassetteSettings;
  /** --mcp-config / --no-mcp; absent: no MCP servers (the demo). */
  mcp?: McpSettings;
  /** --store / TERN_STORE / "store": a postgres:// URL; absent: the JSONL files under home. */
  store?: string;
  /** The command's output redactor (Io's), told the key in use. */
  redactor?: Redactor;
}

export function resolveAgentSettings(
  values: OptionValues,
  environment: Environment,
  home: Home,
): AgentSettings {
  const { env } = environment;
  const config = home.config.config;
  const flagProvider = stringOption(values, "provider");
  const flagModel = stringOption(values, "model");
  const cwdFlag = stringOption(values, "cwd");
  const cwd = resolve(environment.cwd, cwdFlag ?? ".");
  if (cwdFlag !== undefined) checkDirectory(cwd, "--cwd");

  // --autopilot / "autopilot" and --answer-mode synthesize are the older names of two policies.
  const policies = resolvePolicies({
    flags: listOption(values, "policy"),
    config: config.policies,
    configPath: home.config.path,
    env,
    autopilot: values.autopilot === true || config.autopilot === true,
    synthesize:
      choice(
        "--answer-mode",
        stringOption(values, "answer-mode") ?? config.answerMode ?? "direct",
        ANSWER_MODES,
      ) === "synthesize",
  });
  const settings: AgentSettings = {
    ...home,
    explicitModel: flagProvider !== undefined || flagModel !== undefined,
    flags: Object.keys(values).filter((name) => values[name] !== undefined),
    tools: choice("--tools", stringOption(values, "tools") ?? config.tools ?? "coding", TOOLSETS),
    toolMode: choice(
      "--tool-mode",
      stringOption(values, "tool-mode") ?? config.toolMode ?? "auto",
      TOOL_MODES,
    ),
    answerMode: policies.synthesis!.on ? "synthesize" : "direct",
    maxTurns:
      positiveInteger("--max-turns", stringOption(values, "max-turns")) ??
      config.maxTurns ??
      DEFAULT_MAX_TURNS,
    policies,
    instructions: values["no-instructions"] !== true && config.instructions !== false,
    cwd,
    explicitCwd: cwdFlag !== undefined,
    mode: choice("--mode", stringOption(values, "mode") ?? config.mode ?? "ask", PERMISSION_MODES),
    allow: parsed("--allow-tool", [...(config.allow ?? []), ...listOption(values, "allow-tool")], parseRule),
    deny: parsed("--deny-tool", [...(config.deny ?? []), ...listOption(values, "deny-tool")], parseRule),
    debug: values.debug === true,
    sandbox: choice(
      "--sandbox",
      stringOption(values, "sandbox") ?? config.sandbox ?? "sandbox",
      SANDBOX_PROFILES,
    ),
    allowNet: values["allow-net"] === true || config.allowNet === true,
    allowHosts: parsed(
      "--allow-host",
      [...(config.allowHosts ?? []), ...listOption(values, "allow-host")],
      parseHostPattern,
    ),
    denyHosts: parsed(
      "--deny-host",
      [...(config.denyHosts ?? []), ...listOption(values, "deny-host")],
      parseHostPattern,
    ),
    strategy: choice(
      "--strategy",
      stringOption(values, "strategy") ?? config.strategy ?? "loop",
      RUN_STRATEGIES,
    ),
    roles: config.roles ?? {},
    mcp: resolveMcpSettings(values, environment.cwd),
  };
  const provider = flagProvider ?? nonEmpty(env.TERN_PROVIDER) ?? config.provider;
  const model = flagModel ?? nonEmpty(env.TERN_MODEL) ?? config.model;
  const baseUrl = stringOption(values, "base-url") ?? nonEmpty(env.TERN_BASE_URL) ?? config.baseUrl;
  const apiKey = stringOption(values, "api-key");
  const thinking = stringOption(values, "thinking") ?? config.thinking;
  const system = stringOption(values, "system") ?? config.system;
  const sessionId = stringOption(values, "session");
  if (provider !== undefined) settings.provider = provider;
  if (model !== undefined) settings.model = model;
  if (baseUrl !== undefined) settings.baseUrl = checkUrl(baseUrl);
  if (apiKey !== undefined) settings.apiKey = apiKey;
  if (thinking !== undefined)
    settings.thinking = choice<ThinkingLevel>("--thinking", thinking, THINKING_LEVELS);
  if (system !== undefined) settings.system = system;
  if (sessionId !== undefined) settings.sessionId = sessionId;
  if (config.retry) settings.retry = config.retry;
  const depth = positiveInteger(MAX_SUBAGENT_DEPTH_ENV, nonEmpty(env[MAX_SUBAGENT_DEPTH_ENV]));
  if (depth !== undefined) settings.maxSubagentDepth = depth;
  const cassette = resolveCassetteSettings(values, environment.cwd);
  if (cassette !== undefined) settings.cassette = cassette;
  const store = storeUrlFrom(values, env, config);
  if (store !== undefined) settings.store = store;
  if (environment.redactor) settings.redactor = environment.redactor;
  return settings;
}

/** `texts` when `parse` accepts each one; else a usage error naming the flag. */
function parsed(flag: string, texts: string[], parse: (text: string) => unknown): string[] {
  for (const text of texts) {
    try {
      parse(text);
    } catch (error) {
      throw new UsageError(`${flag}: ${(error as Error).message}`);
    }
  }
  return texts;
}

function checkUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return value.replace(/\/+$/, "");
  } catch {}
  throw new UsageError(
    `--base-url must be an http(s) URL such as http://127.0.0.1:11434/v1 (got ${JSON.stringify(value)})`,
  );
}

export function checkDirectory(path: string, flag: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {}
  if (!isDirectory) throw new UsageError(`${flag} ${path}: no such directory`);
}
