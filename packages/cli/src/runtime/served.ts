// The engine `tern serve` and a cluster worker run: every session they open gets the coding agent
// of `tern run` (coding-agent.ts) for its own workspace, with the model the client picks from the
// catalog; its permission questions go to the client (HTTP or JSON-RPC) instead of a terminal, so
// the factory hands the rules to the server's permission hook ("host"). The settings hooks and
// project rules of the served workspace are read, approvals included, once at startup; a session
// in another root gets the user's hooks and its own project's deny rules
// (config/workspace-settings.ts). The MCP servers of the served workspace (--cwd) are shared by
// every session; each session's agent picks their tools up between its own turns. With --record /
// --replay every session shares the one cassette and notes it, as a CLI session does.
import { type Model, type ModelRegistry, Redactor } from "@tern/ai";
import type { McpManager } from "@tern/mcp";
import { type AgentConfig, type AgentSetup, type EngineOptions, registryCatalog } from "@tern/server";
import type { ServeSettings } from "../config/serve-settings.js";
import type { AgentSettings } from "../config/settings.js";
import { servedWorkspaces, type WorkspaceSettings } from "../config/workspace-settings.js";
import { codingAgent } from "./coding-agent.js";

/**
 * What a served engine keeps secret: the model's key and every OAuth token a remote MCP server
 * uses, handed over by `openMcp`'s `onSecret` as servers connect and as tokens are refreshed (as
 * `openRuntime` does for run and chat). `secrets` is the list the engine adds to each session it
 * opens afterwards (its file never holds them); `redactor`, the output's when there is one, is what
 * every SSE and JSON-RPC frame passes.
 */
export function servedSecrets(
  keys: readonly string[],
  output?: Redactor,
): { secrets: string[]; redactor: Redactor; onSecret: (value: string) => void } {
  const secrets = [...keys];
  const redactor = output ?? new Redactor(secrets);
  if (output) output.add(secrets);
  return {
    secrets,
    redactor,
    onSecret: (value) => {
      if (secrets.includes(value)) return;
      secrets.push(value);
      redactor.add([value]);
    },
  };
}

export interface ServedParts {
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
  registry?: ModelRegistry;
  mcp?: McpManager;
}

export async function servedEngineOptions(
  settings: AgentSettings,
  serve: ServeSettings,
  parts: ServedParts & { registry: ModelRegistry; model: Model },
): Promise<EngineOptions> {
  return {
    models: registryCatalog(parts.registry, parts.model),
    home: settings.home,
    cwd: settings.cwd,
    allowRoots: [settings.cwd, ...serve.allowRoots],
    permissionTimeoutMs: serve.permissionTimeoutMs,
    maxRuns: serve.maxRuns,
    configureAgent: servedAgent(settings, await servedWorkspaces(settings, parts.warn), parts),
  };
}

/** The engine's `configureAgent`: the coding agent of each session's workspace. */
export function servedAgent(
  settings: AgentSettings,
  workspaces: (cwd: string) => WorkspaceSettings,
  parts: ServedParts,
): (setup: AgentSetup) => AgentConfig {
  const { mcp } = parts;
  return ({ cwd, model, session, hooks }) => {
    const coding = codingAgent(settings, {
      cwd,
      model,
      env: parts.env,
      session,
      hooks,
      workspace: workspaces(cwd),
      ask: "host",
      warn: parts.warn,
      ...(parts.registry ? { registry: parts.registry } : {}),
      ...(mcp ? { mcp } : {}),
    });
    return {
      ...coding.options,
      tools: coding.tools,
      systemPrompt: coding.systemPrompt,
      // MCP tools are guarded like the built-in ones, even with --tools none.
      ...(coding.tools.length > 0 || mcp ? { permissions: coding.permissions } : {}),
    };
  };
}
