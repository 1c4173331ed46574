// Public contracts of @tern/server: the engine's event stream (the agent's canonical events plus
// the few a server adds), what a client can attach to a session, and the engine's options. Every
// protocol (FIM-style SSE, Copilot-style JSON-RPC) is a pure mapping of `ServerEvent`s.

import type { AgentEvent, AgentOptions, AnyAgentTool, HookRegistry } from "@tern/agent";
import type { JsonSchema, Model, Redactor } from "@tern/ai";
import type { FsyncMode, Session, SessionStore } from "@tern/session";
import type { PermissionOptions } from "@tern/tools";
import type { RunHost } from "./engine/run-host.js";

// ---------------------------------------------------------------- events

/** What kind of action a permission request is about (Copilot's request kinds). */
export type PermissionKind = "shell" | "write" | "read" | "custom-tool";

/** Events the server adds around the agent's own. Persisted ones go to the session's event log. */
export type SessionServerEvent =
  | { type: "session_start"; sessionId: string; cwd: string; model: string; startTime: string }
  | {
      type: "session_resume";
      sessionId: string;
      cwd: string;
      model: string;
      resumeTime: string;
      eventCount: number;
    }
  | {
      type: "permission_request";
      requestId: string;
      toolCallId: string;
      toolName: string;
      args: Record<string, unknown>;
      kind: PermissionKind;
      /** One readable line ("bash: npm test"). */
      summary: string;
      toolDescription: string;
      /** Rules an "allow always" answer adds for the rest of the session (none: not offered). */
      suggestedRules?: string[];
      /** When the question is denied unanswered (ms since the epoch). */
      expiresAt?: number;
    }
  | { type: "permission_result"; requestId: string; toolCallId: string; allow: boolean; reason?: string }
  | {
      type: "external_tool_request";
      requestId: string;
      toolCallId: string;
      toolName: string;
      args: Record<string, unknown>;
    }
  | { type: "external_tool_result"; requestId: string; toolCallId: string }
  /** A run could not start or broke outside the loop (the loop's own failures end in agent_end). */
  | { type: "run_failed"; message: string }
  /** Nothing runs and nothing is queued. Ephemeral: never in the log. */
  | { type: "idle"; aborted: boolean };

/** The engine's one stream: canonical agent events plus the server's. */
export type ServerEvent = AgentEvent | SessionServerEvent;

export type ServerEventType = ServerEvent["type"];

/** One event as a session's journal holds it. */
export interface JournalEntry {
  /** Grows by 1 per event in this server process; SSE event ids come from it. */
  id: number;
  event: ServerEvent;
  /** The event's `seq` in the session's persisted log, when it was persisted. */
  seq?: number;
  /** Milliseconds since the epoch, when the engine saw it. */
  time: number;
}

// ---------------------------------------------------------------- clients

/** A tool the client runs itself (Copilot SDK tools): the server asks for each call. */
export interface ClientToolSpec {
  name: string;
  description?: string;
  parameters?: JsonSchema;
  /** Run without a permission request. */
  skipPermission?: boolean;
}

/** What a client's answer to a tool request looks like. */
export interface ClientToolResult {
  text: string;
  isError: boolean;
}

export interface PermissionAnswer {
  allow: boolean;
  /** Shown to the model (with a denial, or as a note with an approval). */
  reason?: string;
  /** Allow calls like this one for the rest of the session (the request's suggested rules). */
  remember?: boolean;
}

/** Copilot's hook names; the client's handler answers with Copilot-shaped output. */
export type ClientHookType =
  | "preToolUse"
  | "postToolUse"
  | "postToolUseFailure"
  | "userPromptSubmitted"
  | "sessionStart"
  | "sessionEnd"
  | "errorOccurred"
  | "agentStop";

/** Calls the client's hook handler; resolves with its output (undefined: no opinion). */
export type ClientHookInvoker = (
  hookType: ClientHookType,
  input: Record<string, unknown>,
) => Promise<unknown>;

/** What a connected client brings to a session. One client is attached at a time. */
export interface ClientAttachment {
  tools?: ClientToolSpec[];
  /** The client answers permission requests. */
  requestPermission?: boolean;
  /** The client has hook handlers; `invokeHook` reaches them. */
  invokeHook?: ClientHookInvoker;
}

// ---------------------------------------------------------------- engine options

/** The models a server offers. */
export interface ModelCatalog {
  list(): Model[];
  /** A model by id (or the default for undefined); undefined when unknown. */
  resolve(id?: string): Model | undefined;
}

export interface SystemMessage {
  /** "append" (default) adds to the server's prompt; "replace" uses only this. */
  mode?: "append" | "replace";
  content: string;
}

/** What `configureAgent` sees for each session it equips. */
export interface AgentSetup {
  sessionId: string;
  /** The session the agent persists to (read it; the server writes it). */
  session: Session;
  cwd: string;
  model: Model;
  systemMessage?: SystemMessage;
  /** The session's registry: the engine's client bridges are on it already. */
  hooks: HookRegistry;
}

/** The server's part of a session's agent. Client tools are added after `tools`. */
export interface AgentConfig
  extends Partial<Omit<AgentOptions, "model" | "messages" | "hooks" | "tools" | "systemPrompt">> {
  /** Server-side tools (the built-in coding tools, say). */
  tools?: AnyAgentTool[];
  systemPrompt?: string;
  /**
   * Guards the server-side tools with @tern/tools' permission policy; its questions go to the
   * attached client as permission requests (denied when no client answers them).
   */
  permissions?: Omit<PermissionOptions, "ask" | "tools">;
}

export interface EngineOptions {
  models: ModelCatalog;
  /**
   * Default: a FileSessionStore under `home` (the host's home, else ~/.tern). A function gets the
   * engine's id source (a client may choose a new session's id) and returns the store to use.
   */
  store?: SessionStore | ((newSessionId: () => string) => SessionStore);
  home?: string;
  /** For the default store: when appends reach the disk (default "turn"). */
  fsync?: FsyncMode;
  /** Working directory of new sessions. Default process.cwd(). */
  cwd?: string;
  /** The server's part of each agent (tools, policies, system prompt, ...). */
  configureAgent?: (setup: AgentSetup) => AgentConfig;
  /**
   * Directories a session's cwd must be inside (compared as real paths); default: `cwd` alone.
   * A client's cwd elsewhere, or a stored session from elsewhere, is refused ("forbidden").
   */
  allowRoots?: string[];
  /** How long a permission question waits before it is denied. Default 5 minutes. */
  permissionTimeoutMs?: number;
  /** Runs at once across all sessions; one more is refused ("overloaded"). Default unlimited. */
  maxRuns?: number;
  /** Literal secrets (API keys) no session file may hold: each session redacts them. */
  secrets?: readonly string[];
  /** What no SSE or JSON-RPC frame may show. Default: a Redactor of `secrets`. */
  redactor?: Redactor;
  /** Finished runs whose events a journal keeps for late readers. Default 1. */
  keepRuns?: number;
  /** Where the sessions' runs execute. Default: in this process (`inProcessHost`). */
  host?: RunHost;
  now?: () => number;
}

/** One line of `list` and the HTTP API's session view. */
export interface SessionInfo {
  id: string;
  cwd: string;
  title: string;
  created: string;
  updated: string;
  messageCount: number;
  /** Open in this server (in memory). */
  live: boolean;
  running: boolean;
  model?: string;
  /** The strategy the client chose when it created the session (open sessions only). */
  strategy?: string;
}

/** A failure a protocol reports to its client (HTTP status, JSON-RPC error). */
export class EngineError extends Error {
  constructor(
    readonly code:
      | "not_found"
      | "busy"
      | "invalid"
      | "locked"
      | "idle"
      /** Outside what the operator allows (a cwd outside the allowed roots). */
      | "forbidden"
      /** A stored session that cannot be read. */
      | "corrupt"
      /** The server runs as many runs as it may; try again later. */
      | "overloaded"
      /** The session store cannot be reached right now (its database is down); try again shortly. */
      | "unavailable",
    message: string,
  ) {
    super(message);
    this.name = "EngineError";
  }
}
