// Everything a command needs to run the agent: the session (new or resumed), the model, the MCP
// servers of the workspace, and an Agent that persists itself through the session, assembled by
// the coding-agent factory (coding-agent.ts) with the terminal's asker (or nobody). `run`, `chat`,
// `sessions resume`, `mcp serve`, `acp` (with the editor's asker and tools) and `demo` open it.
import { statSync } from "node:fs";
import type { Agent, AgentOptions, ReactOptions } from "@tern/agent";
import { HookRegistry } from "@tern/agent";
import type { Model, ModelRegistry } from "@tern/ai";
import { isMcpTool, type McpManager, type McpServerEntry } from "@tern/mcp";
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
  type LoadedInstructions,
  type PermissionPolicy,
  type SandboxStatus,
  sandboxWarning,
} from "@tern/tools";
import { UsageError } from "../cli/errors.js";
import { chooseModel, createRegistry, ensureConfiguredKey } from "../config/model.js";
import type { PolicySettings } from "../config/policy-settings.js";
import type { AgentSettings } from "../config/settings.js";
import { openStore, storeFailure } from "../config/store.js";
import { loadWorkspaceSettings, type WorkspaceSettings } from "../config/workspace-settings.js";
import { traceFirstModelCall, traceStartup } from "../startup-trace.js";
import { replaysOffline } from "./cassette.js";
import { bashSandbox, type CodingAgent, codingAgent, type ToolProvider } from "./coding-agent.js";
import { type McpApprover, openMcp } from "./mcp.js";
import { resolveStoreSessionId, sessionFailure } from "./session-ids.js";
import { resumedModel, sessionSettings, withSessionSettings } from "./session-settings.js";

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
  /** The run's hook registry (default: a new one). */
  hooks?: HookRegistry;
  /** Replaces workspace tools (coding-agent.ts's ToolProvider; `tern acp` routes them to the editor). */
  provideTools?: ToolProvider;
  /** MCP servers the host was handed (an ACP client's), started beside the configured ones. */
  mcpServers?: McpServerEntry[];
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
  /** What the coding-agent factory assembled for this run (its rules, options, tools). */
  coding: CodingAgent;
  /** What confines `bash` (for the header). */
  sandbox: SandboxStatus;
  /** The loop policies and their settings (for the header and the --json stream). */
  policies: PolicySettings;
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

export async function openRuntime(given: RuntimeOptions): Promise<Runtime> {
  const { env, warn } = given;
  let options = given;
  const store = await openStore(given.settings.store, given.settings.home, { warn });
  const registry = createRegistry(given.settings, warn);
  let resumed: ResumedSession | undefined;
  if (given.settings.sessionId !== undefined) {
    try {
      const id = await resolveStoreSessionId(store, given.settings.home, given.settings.sessionId);
      resumed = await resumeSession(store, id);
    } catch (error) {
      await store.close?.();
      throw sessionFailure(storeFailure(error));
    }
    const settings = withSessionSettings(given.settings, resumed.session.header.settings, warn);
    options = { ...given, settings };
  }
  const { settings } = options;
  // The bubblewrap probe spawns a process (100-200 ms): it runs while the rest opens, not before.
  const sandboxStatus = createSandbox(bashSandbox(settings)).status();
  let mcp: McpManager | undefined;
  const mcpSecrets = new Set<string>();
  let addToSession: ((values: string[]) => void) | undefined;
  try {
    const model = options.model ?? chooseRunModel(registry, settings, env, resumed);
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
      ...(options.mcpServers ? { extra: options.mcpServers } : {}),
      // OAuth tokens (read as servers connect, and refreshed) join the output's and the session's secrets.
      onSecret: (value) => {
        settings.redactor?.add([value]);
        mcpSecrets.add(value);
        addToSession?.([value]);
      },
    });
    const session =
      resumed?.session ??
      (await store.create({
        cwd,
        settings: sessionSettings(model, settings),
        ...(options.sessionName ? { name: options.sessionName } : {}),
      }));
    session.addSecrets([...secrets, ...mcpSecrets]);
    addToSession = (values) => session.addSecrets(values);
    const [sandbox, loaded] = await Promise.all([sandboxStatus, loadWorkspaceSettings(settings, cwd)]);
    const problem = sandboxWarning(sandbox);
    if (problem) warn(problem);
    for (const warning of loaded.warnings) warn(warning);
    const runtime = build(options, {
      store,
      registry,
      model,
      cwd,
      session,
      resumed,
      sandbox,
      mcp,
      workspace: loaded.workspace,
    });
    traceStartup("runtime open");
    return runtime;
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
    mcp: McpManager | undefined;
    workspace: WorkspaceSettings;
  },
): Runtime {
  const { settings } = options;
  const { session, model, cwd, mcp } = parts;
  const hooks = options.hooks ?? new HookRegistry();
  const coding = codingAgent(settings, {
    cwd,
    model,
    env: options.env,
    session,
    hooks,
    workspace: parts.workspace,
    ask: options.ask ?? "nobody",
    warn: options.warn,
    registry: parts.registry,
    ...(mcp ? { mcp } : {}),
    ...(options.react ? { react: options.react } : {}),
    ...(options.provideTools ? { provideTools: options.provideTools } : {}),
  });
  const { agent, binding } = createSessionAgent(session, {
    model,
    systemPrompt: coding.systemPrompt,
    tools: coding.tools,
    hooks,
    ...coding.options,
    ...options.agentOptions,
  });
  traceFirstModelCall(agent);
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
    tools: coding.tools,
    permissions: coding.policy!,
    coding,
    sandbox: parts.sandbox,
    policies: settings.policies,
    cwd,
    home: settings.home,
    instructions: coding.instructions,
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

/**
 * The model of a new run, or of a resumed one: the session's (its conversation's, or its record's,
 * with the recorded base URL) unless --provider or --model names another.
 */
function chooseRunModel(
  registry: ModelRegistry,
  settings: AgentSettings,
  env: NodeJS.ProcessEnv,
  resumed: ResumedSession | undefined,
): Model {
  const path = settings.config.path;
  if (!resumed || settings.explicitModel) return chooseModel(registry, settings, env, path);
  const recorded = resumed.session.header.settings;
  const { model, baseUrl } = resumedModel(settings, recorded, resumed.context.model);
  try {
    return chooseModel(registry, baseUrl !== undefined ? { baseUrl } : {}, env, path, model);
  } catch (error) {
    if (recorded || !(error instanceof UsageError) || !model) throw error;
    throw new UsageError(
      `session ${resumed.session.id.slice(0, 8)} was saved before tern recorded its base URL, and ${error.message}; ` +
        "pass --base-url (and --provider, --model) once to go on",
    );
  }
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
