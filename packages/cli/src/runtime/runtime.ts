// Everything a command needs to run the agent: the session (new or resumed), the model, the MCP
// servers of the workspace, and an Agent that persists itself through the session, assembled by
// the coding-agent factory (coding-agent.ts) with the terminal's asker (or nobody). `run`, `chat`,
// `sessions resume`, `mcp serve` and `demo` open it.
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
  type LoadedInstructions,
  type PermissionPolicy,
  type SandboxStatus,
  sandboxWarning,
} from "@tern/tools";
import { UsageError } from "../cli/errors.js";
import { chooseModel, createRegistry, ensureConfiguredKey } from "../config/model.js";
import type { AgentSettings } from "../config/settings.js";
import { openStore, storeFailure } from "../config/store.js";
import { loadWorkspaceSettings, type WorkspaceSettings } from "../config/workspace-settings.js";
import { replaysOffline } from "./cassette.js";
import { bashSandbox, type CodingAgent, codingAgent } from "./coding-agent.js";
import { type McpApprover, openMcp } from "./mcp.js";
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
  /** The run's hook registry (default: a new one). */
  hooks?: HookRegistry;
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
  const mcpSecrets = new Set<string>();
  let addToSession: ((values: string[]) => void) | undefined;
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
      // OAuth tokens (read as servers connect, and refreshed) join the output's and the session's secrets.
      onSecret: (value) => {
        settings.redactor?.add([value]);
        mcpSecrets.add(value);
        addToSession?.([value]);
      },
    });
    const session =
      resumed?.session ??
      (await store.create({ cwd, ...(options.sessionName ? { name: options.sessionName } : {}) }));
    session.addSecrets([...secrets, ...mcpSecrets]);
    addToSession = (values) => session.addSecrets(values);
    const sandbox = await createSandbox(bashSandbox(settings)).status();
    const problem = sandboxWarning(sandbox);
    if (problem) warn(problem);
    const loaded = await loadWorkspaceSettings(settings, cwd);
    for (const warning of loaded.warnings) warn(warning);
    return build(options, {
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
  });
  const { agent, binding } = createSessionAgent(session, {
    model,
    systemPrompt: coding.systemPrompt,
    tools: coding.tools,
    hooks,
    ...coding.options,
    ...options.agentOptions,
  });
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
