// The engine `tern serve` runs: every session it opens gets the coding agent of `tern run`
// (agent-parts.ts) for its own workspace, with the model the client picks from the catalog, and
// its permission questions go to the client (HTTP or JSON-RPC) instead of a terminal. The MCP
// servers of the served workspace (--cwd) are shared by every session; each session's agent
// picks their tools up between its own turns. With --record / --replay every session shares the
// one cassette and notes it, as a CLI session does.
// Settings hooks: the user's run in every session; the project's (approved) only in sessions whose
// workspace root is the served one (approval is read once, at startup).
import type { Model, ModelRegistry } from "@tern/ai";
import type { McpManager } from "@tern/mcp";
import { type AgentConfig, type EngineOptions, registryCatalog } from "@tern/server";
import { installCheckpoints, workspaceRoot } from "@tern/tools";
import { type HookSettings, installCommandHooks, loadHookSettings } from "../config/hooks.js";
import type { ServeSettings } from "../config/serve-settings.js";
import type { AgentSettings } from "../config/settings.js";
import { checkpointStore, currentTurnId } from "../sessions/rewind.js";
import { agentParts, bashSandbox } from "./agent-parts.js";
import { attachCassette } from "./cassette.js";
import { currentMcpTools, mcpTurns } from "./mcp.js";

/** The settings hooks for the served workspace (warnings included), read once at startup. */
export function servedHooks(settings: AgentSettings): Promise<HookSettings> {
  return loadHookSettings(
    settings.home,
    settings.config.config.hooks,
    settings.config.path,
    workspaceRoot(settings.cwd),
  );
}

export function servedEngineOptions(
  settings: AgentSettings,
  serve: ServeSettings,
  parts: {
    registry: ModelRegistry;
    model: Model;
    env: NodeJS.ProcessEnv;
    hooks?: HookSettings;
    mcp?: McpManager;
  },
): EngineOptions {
  const servedRoot = workspaceRoot(settings.cwd);
  return {
    models: registryCatalog(parts.registry, parts.model),
    home: settings.home,
    cwd: settings.cwd,
    allowRoots: [settings.cwd, ...serve.allowRoots],
    permissionTimeoutMs: serve.permissionTimeoutMs,
    maxRuns: serve.maxRuns,
    configureAgent: ({ cwd, model, session, hooks }): AgentConfig => {
      const root = workspaceRoot(cwd);
      const settingsHooks = root === servedRoot ? parts.hooks?.active : parts.hooks?.user;
      installCommandHooks(hooks, settingsHooks ?? [], {
        root: cwd,
        projectDir: root,
        sandbox: bashSandbox(settings),
      });
      const { tools, systemPrompt, permissions, options } = agentParts(settings, {
        cwd,
        model,
        env: parts.env,
        registry: parts.registry,
        ...(parts.mcp
          ? {
              mcpServers: parts.mcp.status().map((server) => server.name),
              mcpTools: currentMcpTools(parts.mcp),
            }
          : {}),
        hooks,
      });
      // After agentParts opened the cassette: the session's id becomes `{{session}}` in it (the
      // Responses API's cache key), and `tern sessions export ID --cassette` finds the file.
      attachCassette(settings.cassette, session);
      // Served sessions are checkpointed like the CLI's: `tern sessions rewind` works on them.
      installCheckpoints(hooks, {
        store: checkpointStore(settings.home, session),
        tools,
        turn: () => currentTurnId(session),
      });
      return {
        ...options,
        tools,
        systemPrompt,
        ...(parts.mcp ? { prepareNextTurn: mcpTurns(parts.mcp) } : {}),
        // MCP tools are guarded like the built-in ones, even with --tools none.
        ...(tools.length > 0 || parts.mcp
          ? { permissions: { ...permissions, currentTools: currentMcpTools(parts.mcp) } }
          : {}),
      };
    },
  };
}
