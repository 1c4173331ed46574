// The coding agent, once, for every command that runs it: `run`, `chat` and the sessions a
// `tern serve` opens all get these parts from the same settings. The tools confined to the
// workspace, the system prompt, the permission policy's options (the caller supplies who is
// asked), the context guard, the ReAct policies and what the provider calls need.
import {
  type AgentOptions,
  type AnyAgentTool,
  contextGuard,
  type HookRegistry,
  type ModelRole,
  REQUEST_TOOLS_TOOL,
  type ReactOptions,
  TASK_COMPLETE_TOOL,
  TASK_TOOL_NAME,
} from "@tern/agent";
import type { Model, ModelRegistry } from "@tern/ai";
import {
  type AnyBuiltinTool,
  createTools,
  formatInstructions,
  type LoadedInstructions,
  loadInstructions,
  type PermissionOptions,
  type SandboxOptions,
} from "@tern/tools";
import { chooseModel, explicitApiKey } from "../config/model.js";
import type { AgentSettings } from "../config/settings.js";
import { cassetteFetch, replayKey } from "./cassette.js";
import { extraTools } from "./extra-tools.js";
import { loopOptions } from "./loop-options.js";
import { systemPrompt } from "./system-prompt.js";

export interface AgentParts {
  tools: AnyBuiltinTool[];
  systemPrompt: string;
  /** The project instructions in the system prompt (none with --no-instructions). */
  instructions: LoadedInstructions;
  /** The policy's options, without `ask` and `tools` (each command asks its own way). */
  permissions: Omit<PermissionOptions, "ask" | "tools">;
  /** Thinking level, stream options (key, retries), the context guard and the ReAct options. */
  options: Partial<AgentOptions>;
  /** Problems worth telling the user (agent profiles that could not be read). */
  warnings: string[];
}

export function agentParts(
  settings: AgentSettings,
  where: {
    cwd: string;
    model: Model;
    env: NodeJS.ProcessEnv;
    react?: Partial<ReactOptions>;
    /** How bash is confined (default: bashSandbox(settings)). */
    sandbox?: SandboxOptions;
    /** Resolves the plan roles' models ("roles" in config.json); without it steps use `model`. */
    registry?: ModelRegistry;
    /** The MCP servers whose tools may join (named in the system prompt). */
    mcpServers?: readonly string[];
    /** Their tools as they are now, for sub-agents (`task`) started later in the run. */
    mcpTools?: () => readonly AnyAgentTool[];
    /** The run's hooks (permissions), which sub-agents share; without them there is no `task` tool. */
    hooks?: HookRegistry;
  },
): AgentParts {
  const { cwd, model, env } = where;
  const tools =
    settings.tools === "none"
      ? []
      : createTools({ root: cwd, sandbox: where.sandbox ?? bashSandbox(settings) });
  const apiKey = replayKey(settings.cassette, explicitApiKey(model, settings, env));
  const instructions: LoadedInstructions = settings.instructions
    ? loadInstructions({ cwd, home: settings.home, env })
    : { root: cwd, files: [], warnings: [] };
  // One set of stream options for the run and its sub-agents, so a cassette records and replays both.
  const streamOptions = {
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(settings.retry ? { retry: settings.retry } : {}),
    ...(settings.cassette ? { fetch: cassetteFetch(settings.cassette, { cwd, model, apiKey, env }) } : {}),
  };
  const extra =
    settings.tools === "none"
      ? { tools: [], warnings: [] }
      : extraTools(settings, { ...where, streamOptions }, tools);
  tools.push(...(extra.tools as AnyBuiltinTool[]));
  return {
    warnings: extra.warnings,
    tools,
    instructions,
    systemPrompt: systemPrompt({
      cwd,
      toolNames: tools.map((tool) => tool.name),
      instructions: formatInstructions(instructions.files),
      ...(where.mcpServers ? { mcpServers: where.mcpServers } : {}),
      ...(settings.system ? { extra: settings.system } : {}),
    }),
    permissions: {
      mode: settings.mode,
      allow: settings.allow,
      deny: settings.deny,
      // The agent's own policy tools change nothing outside the run: they never need permission.
      // `task` itself changes nothing: its sub-agent's calls pass this same policy one by one.
      kinds: { [TASK_COMPLETE_TOOL]: "read", [REQUEST_TOOLS_TOOL]: "read", [TASK_TOOL_NAME]: "read" },
      root: cwd,
    },
    options: {
      ...(settings.thinking ? { thinkingLevel: settings.thinking } : {}),
      streamOptions,
      // Keeps every model call inside the model's context window (and makes /compact possible).
      policies: [contextGuard()],
      ...loopOptions(settings, where.react),
      strategy: settings.strategy,
      plan: { roles: planRoles(settings, where) },
    },
  };
}

/** The models of the plan roles, resolved like --model (an unknown one is a usage error). */
function planRoles(
  settings: AgentSettings,
  where: { env: NodeJS.ProcessEnv; registry?: ModelRegistry },
): Partial<Record<ModelRole, Model>> {
  const roles: Partial<Record<ModelRole, Model>> = {};
  if (!where.registry) return roles;
  for (const [role, id] of Object.entries(settings.roles) as [ModelRole, string][]) {
    roles[role] = chooseModel(where.registry, { model: id }, where.env, settings.config.path);
  }
  return roles;
}

/** How `bash` is confined for these settings; tern's own home (sessions, config) is hidden. */
export function bashSandbox(settings: AgentSettings): SandboxOptions {
  const { allowNet, allowHosts, denyHosts } = settings;
  return { profile: settings.sandbox, allowNet, allowHosts, denyHosts, hide: [settings.home] };
}
