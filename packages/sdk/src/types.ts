// Public contracts of @tern/sdk: the client's options, sessions' configuration, tools, permission
// requests, hooks, and the events a session sends (Copilot-style envelopes).

export type JsonSchema = Record<string, unknown>;

export interface TernClientOptions {
  /** Connect to a running `tern serve --rpc-port N`: a port, "host:port" or "tcp://host:port". */
  url?: string | number;
  /** Spawn this server command over stdio (default: `tern serve --stdio`). */
  command?: string;
  args?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The server's token (sent in `connect`). */
  token?: string;
  /** Called with each line the spawned server writes to stderr. */
  onStderr?: (line: string) => void;
}

/** An event of a session, as the server sends it. */
export interface SessionEvent {
  id: string;
  timestamp: string;
  parentId: string | null;
  ephemeral?: boolean;
  type: string;
  data: Record<string, unknown> & Partial<KnownEventData>;
}

/** Fields the common events carry (all optional: each event has its own subset). */
export interface KnownEventData {
  content: string;
  deltaContent: string;
  messageId: string;
  toolCallId: string;
  toolName: string;
  message: string;
  requestId: string;
}

export type SessionEventHandler = (event: SessionEvent) => void;

export interface ToolInvocation {
  sessionId: string;
  toolCallId: string;
  toolName: string;
  /** Aborts when the server no longer waits for the result. */
  signal: AbortSignal;
}

export interface ToolDefinition<TArgs = Record<string, unknown>> {
  name: string;
  description?: string;
  parameters?: JsonSchema;
  /** Run without asking `onPermissionRequest`. */
  skipPermission?: boolean;
  /** Returns the text the model reads (other values are JSON-encoded); a throw is a failed call. */
  handler: (args: TArgs, invocation: ToolInvocation) => unknown;
}

/** What the server asks permission for (Copilot's request shapes). */
export interface PermissionRequest {
  kind: "custom-tool" | "shell" | "write" | "read" | (string & {});
  toolCallId?: string;
  toolName?: string;
  args?: Record<string, unknown>;
  fullCommandText?: string;
  fileName?: string;
  path?: string;
  intention?: string;
  [field: string]: unknown;
}

export type PermissionDecision =
  | { kind: "approve-once" }
  | { kind: "approve-for-session" }
  | { kind: "reject"; feedback?: string };

export type PermissionHandler = (
  request: PermissionRequest,
  invocation: { sessionId: string },
) => PermissionDecision | Promise<PermissionDecision>;

type Hook<I, O> = (
  input: I & { sessionId: string; timestamp: number; cwd: string },
) => O | undefined | Promise<O | undefined>;

/** Hooks the server runs at fixed points of a run (Copilot's names and shapes). */
export interface SessionHooks {
  onPreToolUse?: Hook<
    { toolName: string; toolArgs: unknown },
    {
      permissionDecision?: "allow" | "deny" | "ask";
      permissionDecisionReason?: string;
      modifiedArgs?: unknown;
    }
  >;
  onPostToolUse?: Hook<
    { toolName: string; toolArgs: unknown; toolResult: { textResultForLlm: string; resultType: string } },
    { modifiedResult?: { textResultForLlm: string; resultType: string }; additionalContext?: string }
  >;
  onPostToolUseFailure?: Hook<
    { toolName: string; toolArgs: unknown; error: string },
    { additionalContext?: string }
  >;
  onUserPromptSubmitted?: Hook<{ prompt: string }, { modifiedPrompt?: string; additionalContext?: string }>;
  onSessionStart?: Hook<{ source: string }, { additionalContext?: string }>;
  onAgentStop?: Hook<
    { stopReason?: string; stopHookActive?: boolean },
    { decision?: "block"; reason?: string }
  >;
  onErrorOccurred?: Hook<{ error: string; errorContext: string; recoverable: boolean }, unknown>;
  onSessionEnd?: Hook<{ reason: string }, unknown>;
}

export interface SessionConfig {
  /** A model id the server offers (`listModels`); default: the server's default. */
  model?: string;
  /** Added to the server's system prompt, or replacing it with `mode: "replace"`. */
  systemMessage?: string | { mode?: "append" | "replace"; content: string };
  tools?: ToolDefinition<never>[];
  /** Without it, client tools run without asking and server tools that need asking are denied. */
  onPermissionRequest?: PermissionHandler;
  hooks?: SessionHooks;
  /** Send text and reasoning deltas. Default true. */
  streaming?: boolean;
  workingDirectory?: string;
  /** Called with every event (like `session.on(handler)`). */
  onEvent?: SessionEventHandler;
}

export interface ResumeConfig extends SessionConfig {
  /** Continue a run the server was interrupted in. */
  continuePendingWork?: boolean;
}

/** A file sent with a message (the server reads it; it must be inside the session's workspace). */
export interface Attachment {
  type: "file";
  /** Absolute, or relative to the session's working directory. */
  path: string;
  /** How the prompt names the file. Default: its workspace-relative path. */
  displayName?: string;
}

export interface SendOptions {
  prompt: string;
  /** Text files are inlined in the prompt; images go to models with vision as image parts. */
  attachments?: Attachment[];
  /** "enqueue" (default): after the current run; "immediate": steer the run going on. */
  mode?: "enqueue" | "immediate";
}

export interface ModelInfo {
  id: string;
  name: string;
  capabilities: {
    supports: { vision: boolean; reasoningEffort: boolean };
    limits: { max_context_window_tokens: number; max_output_tokens?: number };
  };
}

export interface SessionMetadata {
  sessionId: string;
  startTime: Date;
  modifiedTime: Date;
  summary?: string;
  cwd?: string;
}
