// Everything a command needs to run the agent: the session (new or resumed), the model, the
// built-in tools confined to the workspace, the permission policy as a pre-tool hook, the loop
// options, and an Agent that persists itself through the session.
import { statSync } from "node:fs";
import type { Agent, AgentOptions, ReactOptions } from "@tern/agent";
import { HookRegistry } from "@tern/agent";
import type { Model, ModelRegistry } from "@tern/ai";
import { isMcpTool, type McpManager } from "@tern/mcp";
import {
  createSessionAgent,
  type ResumedSession,
  resumeSession,
  type Session,
  type SessionBinding,
  type SessionStore,
} from "@tern/session";
import {
  type AnyBuiltinTool,
  type AskPermission,
  createSandbox,
  installCheckpoints,
  installPermissions,
  type LoadedInstructions,
  type PermissionPolicy,
  type SandboxOptions,
  type SandboxStatus,
  sandboxWarning,
  workspaceRoot,
} from "@tern/tools";
import { UsageError } from "../cli/errors.js";
import { type HookSettings, installCommandHooks, loadHookSettings } from "../config/hooks.js";
import { chooseModel, createRegistry, ensureConfiguredKey } from "../config/model.js";
import { loadProjectRules, PROTECT_PROJECT_CONFIG, type ProjectRules } from "../config/project-rules.js";
import type { AgentSettings } from "../config/settings.js";
import { openStore, storeFailure } from "../config/store.js";
import { checkpointStore, currentTurnId } from "../sessions/rewind.js";
import { agentParts, bashSandbox } from "./agent-parts.js";
import { attachCassette, replaysOffline } from "./cassette.js";
import { withHostQuestion } from "./host-question.js";
import { currentMcpTools, type McpApprover, mcpTurns, openMcp } from "./mcp.js";
import { oneQuestionAtATime } from "./one-question.js";
import { resolveStoreSessionId, sessionFailure } from "./session-ids.js";

export interface RuntimeOptions {
  settings: AgentSettings;
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
  /** Asks the user about a tool call; without it, calls that need asking are denied. */
  ask?: AskPermission;
  /** Use this model instead of resolving one (the demo's scripted model). */
  model?: Model;
  /** Extra agent options. */
  agentOptions?: Partial<AgentOptions>;
  /** Changes to the ReAct policy options (the demo turns none off; tests may). */
  react?: Partial<ReactOptions>;
  /** Name of a new session. */
  sessionName?: string;
  /** Asks about project MCP servers not approved yet; without it they are skipped. */
  approveMcp?: McpApprover;
}

export interface Runtime {
  agent: Agent;
  session: Session;
  binding: SessionBinding;
  store: SessionStore;
  registry: ModelRegistry;
  model: Model;
  tools: AnyBuiltinTool[];
  permissions: PermissionPolicy;
  /** What confines `bash` (for the header). */
  sandbox: SandboxStatus;
  cwd: string;
  /** $TERN_HOME: where approvals and checkpoints live. */
  home: string;
  /** The project instructions loaded into the system prompt. */
  instructions: LoadedInstructions;
  /** Set when --session resumed a saved session. */
  resumed?: ResumedSession;
  /** The workspace's MCP servers, when any are configured (and not --no-mcp). */
  mcp?: McpManager;
  close(): Promise<void>;
}

export async function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { settings, env, warn } = options;
  const store = await openStore(settings.store, settings.home, { warn });
  const registry = createRegistry(settings, warn);
  let resumed: ResumedSession | undefined;
  if (settings.sessionId !== undefined) {
    try {
      const id = await resolveStoreSessionId(store, settings.home, settings.sessionId);
      resumed = await resumeSession(store, id);
    } catch (error) {
      await store.close?.();
      throw sessionFailure(storeFailure(error));
    }
  }
  let mcp: McpManager | undefined;
  try {
    const model =
      options.model ??
      chooseModel(
        registry,
        settings.explicitModel || !resumed?.context.model
          ? settings
          : { ...(settings.baseUrl !== undefined ? { baseUrl: settings.baseUrl } : {}) },
        env,
        settings.config.path,
        resumed?.context.model,
      );
    const secrets =
      options.model || replaysOffline(settings.cassette)
        ? []
        : await ensureConfiguredKey(model, settings, env);
    const cwd = resumed && !settings.explicitCwd ? resumed.session.header.cwd : settings.cwd;
    checkWorkspace(cwd, resumed !== undefined && !settings.explicitCwd);
    // Before the session exists: a malformed MCP configuration stops here and leaves no session behind.
    mcp = await openMcp({
      settings: settings.mcp,
      home: settings.home,
      cwd,
      env,
      warn,
      sandbox: bashSandbox(settings),
      ...(options.approveMcp ? { approve: options.approveMcp } : {}),
    });
    const session =
      resumed?.session ??
      (await store.create({ cwd, ...(options.sessionName ? { name: options.sessionName } : {}) }));
    session.addSecrets(secrets);
    const sandboxOptions = bashSandbox(settings);
    const sandbox = await createSandbox(sandboxOptions).status();
    const problem = sandboxWarning(sandbox);
    if (problem) warn(problem);
    const hookSettings = await loadHookSettings(
      settings.home,
      settings.config.config.hooks,
      settings.config.path,
      workspaceRoot(cwd),
    );
    for (const warning of hookSettings.warnings) warn(warning);
    const projectRules = await loadProjectRules(cwd, settings.home);
    return build(options, {
      store,
      registry,
      model,
      cwd,
      session,
      resumed,
      sandbox,
      sandboxOptions,
      hookSettings,
      projectRules,
      mcp,
    });
  } catch (error) {
    await Promise.all([resumed?.session.close(), mcp?.close()]);
    await store.close?.();
    throw sessionFailure(storeFailure(error));
  }
}

function build(
  options: RuntimeOptions,
  parts: {
    store: SessionStore;
    registry: ModelRegistry;
    model: Model;
    cwd: string;
    session: Session;
    resumed: ResumedSession | undefined;
    sandbox: SandboxStatus;
    sandboxOptions: SandboxOptions;
    hookSettings: HookSettings;
    projectRules: ProjectRules;
    mcp: McpManager | undefined;
  },
): Runtime {
  const { settings } = options;
  const { session, model, cwd, mcp } = parts;
  const ask = options.ask ? oneQuestionAtATime(options.ask) : undefined;
  // One asker for tool calls and the sandbox proxy's hosts, so questions never overlap.
  const sandboxOptions = withHostQuestion(parts.sandboxOptions, settings.mode, ask);
  const hooks = new HookRegistry();
  // Settings hooks run before the permission hook (the lowest priority), so the policy judges
  // the arguments after every rewrite.
  installCommandHooks(hooks, parts.hookSettings.active, {
    root: cwd,
    projectDir: workspaceRoot(cwd),
    sandbox: sandboxOptions,
  });
  const {
    tools,
    systemPrompt,
    instructions,
    permissions,
    options: agentOptions,
    warnings,
  } = agentParts(settings, {
    cwd,
    model,
    env: options.env,
    sandbox: sandboxOptions,
    registry: parts.registry,
    hooks,
    ...(options.react ? { react: options.react } : {}),
    ...(mcp ? { mcpServers: mcp.status().map((server) => server.name), mcpTools: currentMcpTools(mcp) } : {}),
  });
  for (const warning of [...instructions.warnings, ...warnings]) options.warn(warning);
  const project = parts.projectRules;
  for (const warning of project.warnings) options.warn(warning);
  const fromProject = [
    ...project.allow.map((rule) => `allow ${rule}`),
    ...project.deny.map((rule) => `deny ${rule}`),
  ];
  // Said every time: a cloned repository's file must not allow commands unnoticed.
  if (fromProject.length > 0)
    options.warn(`permission rules from ${project.path}: ${fromProject.join(", ")}`);
  const { policy } = installPermissions(hooks, {
    ...permissions,
    allow: [...(permissions.allow ?? []), ...project.allow],
    deny: [...(permissions.deny ?? []), ...project.deny, ...PROTECT_PROJECT_CONFIG],
    tools,
    currentTools: currentMcpTools(mcp),
    ...(ask ? { ask } : {}),
  });
  // Registered after the policy, so its lower priority puts it behind the permission decision.
  installCheckpoints(hooks, {
    store: checkpointStore(settings.home, session),
    tools,
    turn: () => currentTurnId(session),
  });
  const { agent, binding } = createSessionAgent(session, {
    model,
    systemPrompt,
    tools,
    hooks,
    ...agentOptions,
    // MCP tools join between turns: servers come up lazily, restart, or change their lists.
    ...(mcp ? { prepareNextTurn: mcpTurns(mcp, options.warn) } : {}),
    ...options.agentOptions,
  });
  attachCassette(settings.cassette, session);
  // A plan's steps and the next prompt start from the agent's tools: keep their MCP part current.
  mcp?.onChange(() =>
    agent.setTools([...agent.state.tools.filter((tool) => !isMcpTool(tool)), ...mcp.tools()]),
  );
  let closed = false;
  return {
    agent,
    session,
    binding,
    store: parts.store,
    registry: parts.registry,
    model,
    tools,
    permissions: policy,
    sandbox: parts.sandbox,
    cwd,
    home: settings.home,
    instructions,
    ...(parts.resumed ? { resumed: parts.resumed } : {}),
    ...(mcp ? { mcp } : {}),
    close: async () => {
      if (closed) return;
      closed = true;
      binding.detach();
      try {
        await Promise.all([session.close(), mcp?.close()]);
      } finally {
        await parts.store.close?.();
      }
    },
  };
}

function checkWorkspace(cwd: string, fromSession: boolean): void {
  let ok = false;
  try {
    ok = statSync(cwd).isDirectory();
  } catch {}
  if (!ok)
    throw new UsageError(
      fromSession
        ? `the session's directory ${cwd} no longer exists; pass --cwd DIR to work elsewhere`
        : `${cwd}: no such directory`,
    );
}
