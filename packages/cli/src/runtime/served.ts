// The engine `tern serve` runs: every session it opens gets the coding agent of `tern run`
// (agent-parts.ts) for its own workspace, with the model the client picks from the catalog, and
// its permission questions go to the client (HTTP or JSON-RPC) instead of a terminal.
import type { Model, ModelRegistry } from "@tern/ai";
import { type AgentConfig, type EngineOptions, registryCatalog } from "@tern/server";
import { installCheckpoints } from "@tern/tools";
import type { ServeSettings } from "../config/serve-settings.js";
import type { AgentSettings } from "../config/settings.js";
import { checkpointStore, currentTurnId } from "../sessions/rewind.js";
import { agentParts } from "./agent-parts.js";

export function servedEngineOptions(
  settings: AgentSettings,
  serve: ServeSettings,
  parts: { registry: ModelRegistry; model: Model; env: NodeJS.ProcessEnv },
): EngineOptions {
  return {
    models: registryCatalog(parts.registry, parts.model),
    home: settings.home,
    cwd: settings.cwd,
    allowRoots: [settings.cwd, ...serve.allowRoots],
    permissionTimeoutMs: serve.permissionTimeoutMs,
    maxRuns: serve.maxRuns,
    configureAgent: ({ cwd, model, session, hooks }): AgentConfig => {
      const { tools, systemPrompt, permissions, options } = agentParts(settings, {
        cwd,
        model,
        env: parts.env,
        registry: parts.registry,
      });
      // Served sessions are checkpointed like the CLI's: `tern sessions rewind` works on them.
      installCheckpoints(hooks, {
        store: checkpointStore(settings.home, session),
        tools,
        turn: () => currentTurnId(session),
      });
      return { ...options, tools, systemPrompt, ...(tools.length > 0 ? { permissions } : {}) };
    },
  };
}
