// The coding agent, assembled in one place for every host that runs it: `run`, `chat`,
// `sessions resume`, `mcp serve` and `acp` (through openRuntime), the sessions of `tern serve` and
// of a cluster worker (through served.ts), and `demo --web`. Two copies of this assembly once drifted
// apart (a served session ignored the project's deny rules); a host now says only where the agent
// runs, what its workspace's settings files hold, and who answers its permission questions.
// Built first, since everything after reads them: the tools (the workspace's seven, some replaced
// by the host's ToolProvider, then todo_write, web_fetch, web_search, task) and the stream
// options (key, retries, the cassette's fetch, the base URLs of config/library-options.ts). Then,
// always in this order:
//   1. settings hooks: the user's, and the project's once approved (loaded for this workspace by
//      config/workspace-settings.ts); they rewrite arguments before the policy judges them;
//   2. permissions: the mode, the user's rules, the project's rules (deny always, allow once
//      approved) and PROTECT_PROJECT_CONFIG; installed here with the host's asker, or handed to
//      the host ("host": the server's own hook asks its client and also judges client tools);
//   3. checkpoints: behind the permission hook (lower priority), so only calls that run count;
//   4. MCP tools: between turns (prepareNextTurn), for the policy's kinds and for sub-agents,
//      and their servers named in the system prompt;
//   5. instructions: AGENTS.md and the like, in the system prompt (unless --no-instructions), and
//      the Agent Skills: their names and descriptions in the system prompt, their bodies behind
//      the `skill` tool, their trusted allowed-tools among the allow rules (config/skills.ts);
//   6. the cassette (--record / --replay): noted in the session, its id a placeholder;
//   7. policies: the context guard and the ReAct options (tool mode, limits, autopilot, ...);
//   8. telemetry: @tern/agent's spans, content captured only when the command's environment asks.
// The libraries read no environment: what the command's environment says reaches them as options
// mapped in config/library-options.ts (base URLs, the instructions' cap, content capture).
import {
  type AgentOptions,
  contextGuard,
  contextWindowCheck,
  type HookRegistry,
  type ModelRole,
  POLICY_TOOL_NAMES,
  type ReactOptions,
  TASK_TOOL_NAME,
} from "@tern/agent";
import type { Model, ModelRegistry } from "@tern/ai";
import type { McpManager } from "@tern/mcp";
import type { Session } from "@tern/session";
import {
  type AnyBuiltinTool,
  type AskPermission,
  createTools,
  formatInstructions,
  formatSkillsSection,
  installCheckpoints,
  installPermissions,
  type LoadedInstructions,
  loadInstructions,
  type PermissionOptions,
  type PermissionPolicy,
  type SandboxOptions,
  SKILL_TOOL_NAME,
  type Skill,
  skillTool,
  workspaceRoot,
} from "@tern/tools";
import { installCommandHooks } from "../config/hooks.js";
import { baseUrlsFrom, captureContentFrom, instructionsCapFrom } from "../config/library-options.js";
import { chooseModel, explicitApiKey } from "../config/model.js";
import { PROTECT_PROJECT_CONFIG } from "../config/project-rules.js";
import type { AgentSettings } from "../config/settings.js";
import type { WorkspaceSkills } from "../config/skills.js";
import type { WorkspaceSettings } from "../config/workspace-settings.js";
import { checkpointStore, currentTurnId } from "../sessions/rewind.js";
import { attachCassette, cassetteFetch, replayKey } from "./cassette.js";
import { extraTools } from "./extra-tools.js";
import { withHostQuestion } from "./host-question.js";
import { loopOptions } from "./loop-options.js";
import { currentMcpTools, mcpTurns } from "./mcp.js";
import { oneQuestionAtATime } from "./one-question.js";
import { systemPrompt } from "./system-prompt.js";

export interface CodingAgentWhere {
  cwd: string;
  model: Model;
  env: NodeJS.ProcessEnv;
  /** The session the agent persists to: its checkpoints and its cassette entry. */
  session: Session;
  /** The run's hooks: settings hooks, the policy and checkpoints go here; sub-agents share them. */
  hooks: HookRegistry;
  /** This workspace's settings hooks and project rules, as the host loaded them. */
  workspace: WorkspaceSettings;
  /**
   * Who answers the policy's questions: a function (a terminal, chat's input line) or "nobody"
   * (such a call is denied, the model told why), and the policy is installed here; or "host",
   * and the host installs it from `permissions`.
   */
  ask: AskPermission | "nobody" | "host";
  warn: (message: string) => void;
  /** Resolves the plan roles' models ("roles" in config.json); without it steps use `model`. */
  registry?: ModelRegistry;
  /** The workspace's MCP servers, when any run. */
  mcp?: McpManager;
  /** Changes to the ReAct policy options (tests turn some off). */
  react?: Partial<ReactOptions>;
  /** Replaces workspace tools before hooks and the policy see them (see ToolProvider). */
  provideTools?: ToolProvider;
}

/**
 * The extension point for where the workspace tools do their work: it gets the seven tools and
 * returns them, some replaced by tools of the same name and kind (`tern acp` reads, writes and
 * runs commands through the editor). Hooks, the policy and checkpoints judge the returned tools
 * exactly as the originals, so a provider changes where a call runs, never whether it may.
 */
export type ToolProvider = (tools: AnyBuiltinTool[]) => AnyBuiltinTool[];

export interface CodingAgent {
  tools: AnyBuiltinTool[];
  systemPrompt: string;
  /** The project instructions in the system prompt (none with --no-instructions). */
  instructions: LoadedInstructions;
  /** The skills the system prompt lists and the `skill` tool serves (none without tools). */
  skills: WorkspaceSkills;
  /** Every rule in effect, as the policy is (or, for "host", must be) built from them. */
  permissions: Omit<PermissionOptions, "ask" | "tools">;
  /** The installed policy; undefined when the host installs its own. */
  policy?: PermissionPolicy;
  /** The rest of the agent's options: stream options, thinking, policies, ReAct, strategy, MCP turns. */
  options: Partial<AgentOptions>;
}

export function codingAgent(settings: AgentSettings, where: CodingAgentWhere): CodingAgent {
  const { cwd, model, env, hooks, session, mcp } = where;
  const ask = typeof where.ask === "function" ? oneQuestionAtATime(where.ask) : undefined;
  // One asker for tool calls and the sandbox proxy's hosts, so questions never overlap.
  const sandbox = withHostQuestion(bashSandbox(settings), settings.mode, ask);
  const workspaceTools = settings.tools === "none" ? [] : createTools({ root: cwd, sandbox });
  const tools = where.provideTools ? where.provideTools(workspaceTools) : workspaceTools;
  // One set of stream options for the run and its sub-agents, so a cassette records and replays both.
  const apiKey = replayKey(settings.cassette, explicitApiKey(model, settings, env));
  const streamOptions = {
    ...(apiKey !== undefined ? { apiKey } : {}),
    baseUrls: baseUrlsFrom(env),
    ...(settings.retry ? { retry: settings.retry } : {}),
    ...(settings.cassette ? { fetch: cassetteFetch(settings.cassette, { cwd, model, apiKey, env }) } : {}),
  };
  if (settings.tools !== "none") {
    const extra = extraTools(
      settings,
      {
        cwd,
        model,
        env,
        hooks,
        streamOptions,
        ...(where.registry ? { registry: where.registry } : {}),
        ...(mcp ? { mcpTools: currentMcpTools(mcp) } : {}),
      },
      tools,
    );
    tools.push(...(extra.tools as AnyBuiltinTool[]));
    for (const warning of extra.warnings) where.warn(warning);
  }
  // Skills need a tool to reach the model; a run without tools has none.
  const skills: WorkspaceSkills =
    settings.tools === "none"
      ? { skills: [], status: new Map(), allow: [], warnings: [] }
      : where.workspace.skills;
  if (skills.skills.length > 0)
    tools.push(skillTool(skills.skills, { cwd, note: (skill) => skillNote(skill, skills) }));

  // 1. Settings hooks, registered first: they run before the policy (the lowest priority), so it
  // judges the arguments after every rewrite.
  installCommandHooks(hooks, where.workspace.hooks, { root: cwd, projectDir: workspaceRoot(cwd), sandbox });

  // 2. Permissions.
  const project = where.workspace.rules;
  const permissions: CodingAgent["permissions"] = {
    mode: settings.mode,
    allow: [...settings.allow, ...project.allow, ...skills.allow],
    deny: [...settings.deny, ...project.deny, ...PROTECT_PROJECT_CONFIG],
    // The agent's own policy tools change nothing outside the run: they never need permission.
    // `task` itself changes nothing: its sub-agent's calls pass this same policy one by one.
    // `skill` returns text; what a skill's instructions lead to is judged call by call.
    kinds: {
      ...Object.fromEntries(POLICY_TOOL_NAMES.map((name) => [name, "read" as const])),
      [TASK_TOOL_NAME]: "read",
      [SKILL_TOOL_NAME]: "read",
    },
    root: cwd,
    // MCP tools are judged by their own kinds, also those that arrive later.
    currentTools: currentMcpTools(mcp),
  };
  const policy =
    where.ask === "host"
      ? undefined
      : installPermissions(hooks, {
          ...permissions,
          tools,
          ...(ask ? { ask } : {}),
        }).policy;

  // 3. Checkpoints: `tern sessions rewind` works on every host's sessions.
  installCheckpoints(hooks, {
    store: checkpointStore(settings.home, session),
    tools,
    turn: () => currentTurnId(session),
  });

  // 4 and 5: MCP tools and instructions, both in the system prompt.
  const instructions: LoadedInstructions = settings.instructions
    ? loadWorkspaceInstructions(cwd, settings.home, env)
    : { root: cwd, files: [], warnings: [] };
  for (const warning of instructions.warnings) where.warn(warning);
  const prompt = systemPrompt({
    cwd,
    toolNames: tools.map((tool) => tool.name),
    instructions: formatInstructions(instructions.files),
    skills: formatSkillsSection(skills.skills, { toolName: SKILL_TOOL_NAME }),
    ...(mcp ? { mcpServers: mcp.status().map((server) => server.name) } : {}),
    ...(settings.system ? { extra: settings.system } : {}),
  });

  // 6. The cassette, opened above: the session's id becomes `{{session}}` in it (the Responses
  // API's cache key), and `tern sessions export ID --cassette` finds the file.
  attachCassette(settings.cassette, session);

  return {
    tools,
    systemPrompt: prompt,
    instructions,
    skills,
    permissions,
    ...(policy ? { policy } : {}),
    options: {
      ...(settings.thinking ? { thinkingLevel: settings.thinking } : {}),
      streamOptions,
      // MCP tools join between turns: servers come up lazily, restart, or change their lists.
      ...(mcp ? { prepareNextTurn: mcpTurns(mcp, where.warn) } : {}),
      // 7. Refuses a prompt the model's window cannot hold (a catalogued or configured window only),
      // then keeps every model call inside the window (and makes /compact possible).
      policies: [
        contextWindowCheck({ windowOf: (m) => where.registry?.get(m.provider, m.id)?.contextWindow }),
        contextGuard(),
      ],
      ...loopOptions(settings, where.react),
      strategy: settings.strategy,
      plan: { roles: planRoles(settings, where) },
      // 8.
      telemetry: { captureContent: captureContentFrom(env) },
    },
  };
}

/** The instruction files, capped as the environment says; a bad cap is the first warning. */
function loadWorkspaceInstructions(cwd: string, home: string, env: NodeJS.ProcessEnv): LoadedInstructions {
  const { cap, warning } = instructionsCapFrom(env);
  const loaded = loadInstructions({ cwd, home, ...cap });
  if (warning !== undefined) loaded.warnings.unshift(warning);
  return loaded;
}

/** What the `skill` tool adds about a skill's allowed-tools, so the model knows whether they ask. */
function skillNote(skill: Skill, skills: WorkspaceSkills): string | undefined {
  const status = skills.status.get(skill.name);
  if (status === "allowed-tools in effect")
    return `This skill's allowed-tools run without asking: ${skill.allowedTools.join(", ")}.`;
  if (status === "allowed-tools await approval")
    return "This skill's allowed-tools are not approved by the user: those calls need permission as usual.";
  return undefined;
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
