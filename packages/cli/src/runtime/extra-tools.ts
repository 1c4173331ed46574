// The tools beyond the workspace's seven: todo_write, web_fetch (SSRF-guarded; the guard is never
// lifted here), web_search (only when "webSearch" is configured) and task (sub-agents that get
// these same tools plus the MCP tools of the moment they start, the run's hooks, so its permission
// policy, and its bash sandbox).

import { type AnyAgentTool, contextGuard, type HookRegistry, taskTool } from "@tern/agent";
import type { Model, ModelRegistry } from "@tern/ai";
import { httpSearchBackend, todoWriteTool, webFetchTool, webSearchTool } from "@tern/tools";
import { loadAgentProfiles } from "../config/agent-profiles.js";
import { chooseModel } from "../config/model.js";
import type { AgentSettings } from "../config/settings.js";

export interface ExtraToolsWhere {
  cwd: string;
  model: Model;
  env: NodeJS.ProcessEnv;
  registry?: ModelRegistry;
  /** The run's hooks (its permission policy): without them there is no task tool. */
  hooks?: HookRegistry;
  streamOptions?: Record<string, unknown>;
  /** The MCP tools as they are now: the parent gets them between turns, sub-agents when they start. */
  mcpTools?: () => readonly AnyAgentTool[];
}

export function extraTools(
  settings: AgentSettings,
  where: ExtraToolsWhere,
  base: readonly AnyAgentTool[],
): { tools: AnyAgentTool[]; warnings: string[] } {
  const tools: AnyAgentTool[] = [todoWriteTool(), webFetchTool()];
  const search = settings.config.config.webSearch;
  if (search) {
    const apiKey = search.apiKeyEnv ? where.env[search.apiKeyEnv] : undefined;
    tools.push(
      webSearchTool(httpSearchBackend({ kind: search.kind, url: search.url, ...(apiKey ? { apiKey } : {}) })),
    );
  }
  if (!where.hooks) return { tools, warnings: [] };
  const { profiles, warnings } = loadAgentProfiles(settings.home, where.cwd);
  const registry = where.registry;
  // A kind like every built-in tool: `task` changes nothing itself (its sub-agent's calls pass
  // the run's policy one by one).
  const task = taskTool({
    model: where.model,
    tools: () => [...base, ...tools, ...(where.mcpTools?.() ?? [])],
    hooks: where.hooks,
    policies: [contextGuard()],
    profiles,
    ...(where.streamOptions ? { streamOptions: where.streamOptions } : {}),
    maxTurns: settings.maxTurns,
    ...(settings.maxSubagentDepth !== undefined ? { maxDepth: settings.maxSubagentDepth } : {}),
    resolveModel: (id) => {
      if (!registry) return undefined;
      try {
        return chooseModel(registry, { model: id }, where.env, settings.config.path);
      } catch {
        return undefined;
      }
    },
  });
  tools.push(Object.assign(task, { kind: "read" as const }) as AnyAgentTool);
  return { tools, warnings };
}
