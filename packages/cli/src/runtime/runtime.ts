// Everything a command needs to run the agent: the session (new or resumed), the model, the
// built-in tools confined to the workspace, the permission policy as a pre-tool hook, the loop
// options, and an Agent that persists itself through the session.
import { statSync } from "node:fs";
import type { Agent, AgentOptions, ReactOptions } from "@tern/agent";
import { HookRegistry } from "@tern/agent";
import type { Model, ModelRegistry } from "@tern/ai";
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
  installPermissions,
  type PermissionPolicy,
  type SandboxOptions,
  type SandboxStatus,
  sandboxWarning,
} from "@tern/tools";
import { UsageError } from "../cli/errors.js";
import { chooseModel, createRegistry, ensureConfiguredKey } from "../config/model.js";
import type { AgentSettings } from "../config/settings.js";
import { openStore, storeFailure } from "../config/store.js";
import { agentParts, bashSandbox } from "./agent-parts.js";
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
  /** Set when --session resumed a saved session. */
  resumed?: ResumedSession;
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
    const secrets = options.model ? [] : await ensureConfiguredKey(model, settings, env);
    const cwd = resumed && !settings.explicitCwd ? resumed.session.header.cwd : settings.cwd;
    checkWorkspace(cwd, resumed !== undefined && !settings.explicitCwd);
    const session =
      resumed?.session ??
      (await store.create({ cwd, ...(options.sessionName ? { name: options.sessionName } : {}) }));
    session.addSecrets(secrets);
    const sandboxOptions = bashSandbox(settings);
    const sandbox = await createSandbox(sandboxOptions).status();
    const problem = sandboxWarning(sandbox);
    if (problem) warn(problem);
    return build(options, { store, registry, model, cwd, session, resumed, sandbox, sandboxOptions });
  } catch (error) {
    await resumed?.session.close();
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
  },
): Runtime {
  const { settings } = options;
  const { session, model, cwd } = parts;
  const {
    tools,
    systemPrompt,
    permissions,
    options: agentOptions,
  } = agentParts(settings, {
    cwd,
    model,
    env: options.env,
    sandbox: parts.sandboxOptions,
    registry: parts.registry,
    ...(options.react ? { react: options.react } : {}),
  });
  const hooks = new HookRegistry();
  const { policy } = installPermissions(hooks, {
    ...permissions,
    tools,
    ...(options.ask ? { ask: oneQuestionAtATime(options.ask) } : {}),
  });
  const { agent, binding } = createSessionAgent(session, {
    model,
    systemPrompt,
    tools,
    hooks,
    ...agentOptions,
    ...options.agentOptions,
  });
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
    ...(parts.resumed ? { resumed: parts.resumed } : {}),
    close: async () => {
      if (closed) return;
      closed = true;
      binding.detach();
      try {
        await session.close();
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
