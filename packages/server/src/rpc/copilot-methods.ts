// The Copilot CLI's JSON-RPC methods (protocol version 3), for one connection. What the official
// @github/copilot-sdk calls in its core flow is served; every other method is "Method not found".

import type { Model } from "@tern/ai";
import type { Engine } from "../engine/engine.js";
import type { HostedSession } from "../engine/run-host.js";
import { tokenMatches } from "../http/auth.js";
import { copilotHistory } from "../mappings/copilot-envelope.js";
import type {
  ClientToolResult,
  ClientToolSpec,
  PermissionAnswer,
  SessionInfo,
  SystemMessage,
} from "../types.js";
import { PROTOCOL_VERSION, SERVER_VERSION } from "../version.js";
import { promptWithClientAttachments } from "./attachments.js";
import { flag, optionalString, type Params, record, requireString } from "./params.js";
import {
  INVALID_PARAMS,
  type JsonRpcPeer,
  NOT_FOUND,
  RpcError,
  type RpcHandler,
  UNAUTHORIZED,
} from "./peer.js";
import { SessionLink } from "./session-link.js";

export interface CopilotConnectionOptions {
  /** When set, `connect` must carry it before any other method works. */
  token?: string;
  /** `runtime.shutdown` was called (by a client that started this server). */
  onShutdown?: () => void;
}

/** Methods that work before a token-checked `connect`. */
const OPEN_METHODS = new Set(["connect", "ping"]);

/** Approvals that also allow calls like this one for the rest of the session. */
const LASTING_APPROVALS = new Set([
  "approve-for-session",
  "approve-for-location",
  "approve-permanently",
  "approved-for-session",
  "approved-for-location",
]);

/** Approvals among Copilot's permission decisions; anything else denies. */
const APPROVALS = new Set([
  "approve-once",
  "approve-for-session",
  "approve-for-location",
  "approve-permanently",
  "approved",
  "approved-for-session",
  "approved-for-location",
]);

export class CopilotConnection {
  private readonly links = new Map<string, SessionLink>();
  private authenticated: boolean;
  private readonly table: Record<string, RpcHandler>;

  constructor(
    private readonly engine: Engine,
    private readonly peer: JsonRpcPeer,
    private readonly options: CopilotConnectionOptions = {},
  ) {
    this.authenticated = !options.token;
    this.table = {
      connect: (p) => this.connect(p),
      ping: (p) => ({
        message: optionalString(p, "message") ?? "pong",
        timestamp: new Date().toISOString(),
        protocolVersion: PROTOCOL_VERSION,
      }),
      "status.get": () => ({ version: SERVER_VERSION, protocolVersion: PROTOCOL_VERSION }),
      "auth.getStatus": () => ({
        isAuthenticated: true,
        authType: "api-key",
        statusMessage: "tern serves its own models; no GitHub login is needed",
      }),
      "models.list": () => ({ models: this.engine.models.list().map(modelInfo) }),
      "session.create": (p) => this.create(p),
      "session.resume": (p) => this.resume(p),
      "session.send": (p) => this.send(p),
      "session.abort": (p) => {
        this.session(p).abort();
        return {};
      },
      "session.detach": (p) => this.detach(p),
      "session.destroy": (p) => this.detach(p),
      "session.delete": (p) => this.delete(p),
      "session.list": async () => ({ sessions: (await this.engine.list()).map(sessionMetadata) }),
      "session.getLastId": async () => ({ sessionId: (await this.engine.list())[0]?.id }),
      "session.getMetadata": async (p) => {
        const id = requireString(p, "sessionId");
        const found = (await this.engine.list()).find((info) => info.id === id);
        return { session: found ? sessionMetadata(found) : undefined };
      },
      "session.getMessages": async (p) => {
        const id = requireString(p, "sessionId");
        return { events: copilotHistory(id, await this.engine.history(id)) };
      },
      "session.tools.handlePendingToolCall": (p) => ({
        success: this.session(p).answerToolCall(requireString(p, "requestId"), toolResult(p)),
      }),
      "session.permissions.handlePendingPermissionRequest": (p) => ({
        success: this.session(p).answerPermission(requireString(p, "requestId"), permissionAnswer(p)),
      }),
      "session.model.getCurrent": (p) => ({ modelId: this.session(p).model.id }),
      "session.model.switchTo": (p) => {
        const session = this.session(p);
        session.setModel(this.engine.model(requireString(p, "modelId")));
        return { modelId: session.model.id };
      },
      // Copilot-only session options (custom instructions, plugins, ...) mean nothing here.
      "session.options.update": () => ({}),
      "runtime.shutdown": () => {
        setImmediate(() => this.options.onShutdown?.());
        return {};
      },
    };
  }

  handler = (method: string): RpcHandler | undefined => {
    // Own methods only: "constructor", "__proto__" or "toString" are not methods of this table.
    const handler = Object.hasOwn(this.table, method) ? this.table[method] : undefined;
    if (!handler || this.authenticated || OPEN_METHODS.has(method)) return handler;
    return () => {
      throw new RpcError(UNAUTHORIZED, "Unauthorized: call connect with the server's token first");
    };
  };

  /** Sessions this connection has open (one that holds any is not idle, however quiet). */
  get openSessions(): number {
    return this.links.size;
  }

  /** The connection closed: detach its clients; idle sessions close, running ones when they finish. */
  closeAll(): void {
    for (const link of this.links.values()) {
      link.close();
      const session = link.session;
      void session.idle().then(() => {
        if (!session.attached) return this.engine.close(session.id);
      });
    }
    this.links.clear();
  }

  private connect(p: Params) {
    const token = this.options.token;
    if (token) {
      const given = optionalString(p, "token");
      if (given === undefined || !tokenMatches(given, token))
        throw new RpcError(UNAUTHORIZED, "Unauthorized: wrong or missing connection token");
      this.authenticated = true;
    }
    return { protocolVersion: PROTOCOL_VERSION, version: SERVER_VERSION };
  }

  private async create(p: Params) {
    const sessionId = optionalString(p, "sessionId");
    const model = optionalString(p, "model");
    const cwd = optionalString(p, "workingDirectory");
    const systemMessage = systemMessageOf(p.systemMessage);
    // tern's own option (not in the Copilot protocol): "loop" | "plan" | "auto".
    const strategy = optionalString(p, "strategy");
    this.checkClient(p);
    const session = await this.engine.create({
      ...(strategy !== undefined ? { strategy } : {}),
      ...(sessionId !== undefined ? { sessionId } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(cwd !== undefined ? { cwd } : {}),
      ...(systemMessage ? { systemMessage } : {}),
      beforeStart: (opened) => this.link(opened, p),
    });
    return { sessionId: session.id, capabilities: {} };
  }

  private async resume(p: Params) {
    const id = requireString(p, "sessionId");
    const model = optionalString(p, "model");
    const systemMessage = systemMessageOf(p.systemMessage);
    this.checkClient(p);
    let linked = false;
    const session = await this.engine.open(id, {
      ...(model !== undefined ? { model } : {}),
      ...(systemMessage ? { systemMessage } : {}),
      beforeStart: (opened) => {
        linked = true;
        this.link(opened, p);
      },
    });
    // Already open here (another client's, or one this server kept): take it over.
    if (!linked) this.link(session, p);
    if (p.continuePendingWork === true) session.continue();
    return { sessionId: session.id, capabilities: {} };
  }

  private async send(p: Params) {
    const prompt = requireString(p, "prompt");
    const mode = p.mode === "immediate" ? "immediate" : "enqueue";
    const session = this.session(p);
    const { text, images } = await promptWithClientAttachments(p, prompt, {
      workspace: session.workspace,
      model: session.model,
    });
    session.send(text, mode, images);
    return { messageId: crypto.randomUUID() };
  }

  private async detach(p: Params) {
    const id = requireString(p, "sessionId");
    const link = this.links.get(id);
    if (link) {
      this.links.delete(id);
      link.close();
      if (!link.session.attached) await this.engine.close(id);
    }
    return { success: true };
  }

  private async delete(p: Params) {
    const id = requireString(p, "sessionId");
    this.links.get(id)?.close();
    this.links.delete(id);
    try {
      await this.engine.delete(id);
      return { success: true };
    } catch (error) {
      return { success: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  private link(session: HostedSession, p: Params): void {
    this.links.get(session.id)?.close();
    this.links.set(session.id, new SessionLink(this.peer, session, linkConfig(p)));
  }

  /** Refuses, before any session is made, a client the run host cannot serve (its tools, hooks). */
  private checkClient(p: Params): void {
    const { tools, requestPermission, hooks } = linkConfig(p);
    this.engine.checkClient({
      tools,
      requestPermission,
      ...(hooks ? { invokeHook: async () => undefined } : {}),
    });
  }

  /** A session this connection created or resumed. */
  private session(p: Params): HostedSession {
    const id = requireString(p, "sessionId");
    const link = this.links.get(id);
    if (!link)
      throw new RpcError(NOT_FOUND, `Session not found: ${id} (create or resume it on this connection)`);
    return link.session;
  }
}

function linkConfig(p: Params) {
  return {
    tools: toolSpecs(p.tools),
    requestPermission: flag(p, "requestPermission"),
    hooks: flag(p, "hooks"),
    streaming: flag(p, "streaming"),
  };
}

function toolSpecs(value: unknown): ClientToolSpec[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new RpcError(INVALID_PARAMS, 'Invalid params: "tools" must be an array');
  return value.map((item, index) => {
    const tool = record(item);
    if (!tool || typeof tool.name !== "string" || tool.name === "")
      throw new RpcError(INVALID_PARAMS, `Invalid params: tools[${index}] needs a name`);
    const spec: ClientToolSpec = { name: tool.name };
    if (typeof tool.description === "string") spec.description = tool.description;
    const parameters = record(tool.parameters);
    if (parameters) spec.parameters = parameters;
    if (tool.skipPermission === true) spec.skipPermission = true;
    return spec;
  });
}

function systemMessageOf(value: unknown): SystemMessage | undefined {
  const message = record(value);
  if (!message || typeof message.content !== "string" || message.content === "") return undefined;
  return { mode: message.mode === "replace" ? "replace" : "append", content: message.content };
}

/** A client tool's answer: a string, a ToolResultObject, or an error message. */
function toolResult(p: Params): ClientToolResult {
  const error = optionalString(p, "error");
  if (error !== undefined) return { text: error, isError: true };
  const result = p.result;
  if (typeof result === "string") return { text: result, isError: false };
  const object = record(result);
  if (!object) return { text: "", isError: false };
  const text = typeof object.textResultForLlm === "string" ? object.textResultForLlm : "";
  const failed = typeof object.error === "string" && object.error !== "";
  const type = typeof object.resultType === "string" ? object.resultType : failed ? "failure" : "success";
  return { text: text || (failed ? (object.error as string) : ""), isError: type !== "success" };
}

function permissionAnswer(p: Params): PermissionAnswer {
  const result = record(p.result);
  const kind = typeof result?.kind === "string" ? result.kind : "";
  if (APPROVALS.has(kind)) return { allow: true, ...(LASTING_APPROVALS.has(kind) ? { remember: true } : {}) };
  const feedback =
    typeof result?.feedback === "string" && result.feedback !== "" ? result.feedback : undefined;
  return {
    allow: false,
    reason: feedback ?? (kind ? `the client answered "${kind}"` : "the client denied it"),
  };
}

function modelInfo(model: Model) {
  return {
    id: model.id,
    name: model.name,
    capabilities: {
      supports: { vision: model.abilities.images, reasoningEffort: model.abilities.reasoning },
      limits: { max_context_window_tokens: model.contextWindow, max_output_tokens: model.maxOutputTokens },
    },
  };
}

function sessionMetadata(info: SessionInfo) {
  return {
    sessionId: info.id,
    startTime: info.created,
    modifiedTime: info.updated,
    summary: info.title,
    isRemote: false,
    context: { cwd: info.cwd },
  };
}
