// The ACP agent of `tern acp` on the official SDK's agent app: `initialize` (the protocol
// version, what tern can take and do), `session/new` and `session/load` (a workspace inside the
// allowed roots; the editor's MCP servers), `session/prompt` and `session/cancel`. Requests are
// checked by the SDK's schemas before they get here; a request that fails here gets a JSON-RPC
// error and the connection goes on.
import { isAbsolute } from "node:path";
import {
  type AgentApp,
  agent,
  type ClientCapabilities,
  type McpServer,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import type { McpServerEntry } from "@tern/mcp";
import { workspaceIn } from "../commands/shared.js";
import type { AgentSettings } from "../config/settings.js";
import { VERSION } from "../version.js";
import { AcpSession } from "./session.js";

export interface AcpAgentOptions {
  settings: AgentSettings;
  /** Real paths a session's cwd must lie in (--allow-root; default the directory tern acp started in). */
  roots: readonly string[];
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
}

/** The agent app, and `close` for when the connection ends: every session's runtime is closed. */
export function acpAgent(options: AcpAgentOptions): { app: AgentApp; close: () => Promise<void> } {
  const sessions = new Map<string, AcpSession>();
  let capabilities: ClientCapabilities = {};

  const open = async (
    cwd: string,
    mcpServers: McpServer[],
    client: Parameters<typeof AcpSession.open>[1]["client"],
    resume?: string,
  ): Promise<AcpSession> => {
    const workspace = confined(cwd, options.roots);
    let id = resume ?? "";
    const session = await AcpSession.open(
      { ...options.settings, cwd: workspace, explicitCwd: true, sessionId: resume },
      {
        client,
        capabilities,
        sessionId: () => id,
        env: options.env,
        warn: options.warn,
        mcpServers: mcpServers.map(mcpEntry),
      },
    ).catch((error: Error) => {
      throw RequestError.invalidParams(undefined, error.message);
    });
    id ||= session.runtime.session.id;
    sessions.set(id, session);
    return session;
  };
  const find = (id: string): AcpSession => {
    const session = sessions.get(id);
    if (!session) throw RequestError.sessionNotFound(id);
    return session;
  };

  const app = agent({ name: "tern" })
    .onRequest("initialize", ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
      return {
        // Version 1 is the only one this SDK speaks; a client asking for another gets ours.
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: { name: "tern", title: "tern", version: VERSION },
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
        },
        authMethods: [],
      };
    })
    .onRequest("session/new", async ({ params, client }) => {
      const session = await open(params.cwd, params.mcpServers, client);
      return { sessionId: session.runtime.session.id };
    })
    .onRequest("session/load", async ({ params, client }) => {
      if (sessions.has(params.sessionId))
        throw RequestError.invalidRequest(undefined, `session ${params.sessionId} is already open`);
      const session = await open(params.cwd, params.mcpServers, client, params.sessionId);
      await session.replay();
      return {};
    })
    .onRequest("session/prompt", async ({ params }) => ({
      stopReason: await find(params.sessionId).prompt(params.prompt),
    }))
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  return {
    app,
    close: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map((session) => session.close()));
    },
  };
}

/** The session's workspace: an absolute, existing directory inside one of the roots (its real path). */
function confined(cwd: string, roots: readonly string[]): string {
  if (!isAbsolute(cwd))
    throw RequestError.invalidParams(undefined, `cwd must be an absolute path, not "${cwd}"`);
  const workspace = workspaceIn(cwd, roots, "tern acp", `${roots.join(", ")}; see --allow-root`);
  if (typeof workspace !== "string") throw RequestError.invalidParams(undefined, workspace.error);
  return workspace;
}

/** An MCP server the editor passed, as an entry of tern's MCP configuration. */
function mcpEntry(server: McpServer): McpServerEntry {
  const file = "the ACP client's session request";
  if ("type" in server && (server.type === "http" || server.type === "sse"))
    return {
      name: server.name,
      scope: "extra",
      file,
      config: {
        type: server.type,
        url: server.url,
        headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])),
      },
    };
  const stdio = server as Extract<McpServer, { command: string }>;
  return {
    name: stdio.name,
    scope: "extra",
    file,
    config: {
      type: "stdio",
      command: stdio.command,
      args: stdio.args,
      env: Object.fromEntries(stdio.env.map((variable) => [variable.name, variable.value])),
    },
  };
}
