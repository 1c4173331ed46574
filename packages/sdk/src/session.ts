// One session on a tern server: send messages, wait for the run to go idle, listen to events.
// The session answers the server's questions itself: it runs its tools on external_tool.requested
// and asks `onPermissionRequest` on permission.requested.

import type { RpcConnection } from "./rpc.js";
import type {
  PermissionHandler,
  PermissionRequest,
  SendOptions,
  SessionConfig,
  SessionEvent,
  SessionEventHandler,
  SessionHooks,
  ToolDefinition,
} from "./types.js";

const HOOKS: Record<string, keyof SessionHooks> = {
  preToolUse: "onPreToolUse",
  postToolUse: "onPostToolUse",
  postToolUseFailure: "onPostToolUseFailure",
  userPromptSubmitted: "onUserPromptSubmitted",
  sessionStart: "onSessionStart",
  agentStop: "onAgentStop",
  errorOccurred: "onErrorOccurred",
  sessionEnd: "onSessionEnd",
};

export class TernSession {
  private readonly handlers = new Set<SessionEventHandler>();
  private readonly typed = new Map<string, Set<SessionEventHandler>>();
  private readonly tools = new Map<string, ToolDefinition<never>>();
  private readonly running = new Map<string, AbortController>();
  private readonly permissionHandler: PermissionHandler | undefined;
  private readonly hooks: SessionHooks | undefined;
  private closed = false;

  /** @internal Made by TernClient. */
  constructor(
    readonly sessionId: string,
    private readonly rpc: RpcConnection,
    config: SessionConfig,
    private readonly onClose: () => void,
  ) {
    for (const tool of config.tools ?? []) this.tools.set(tool.name, tool);
    this.permissionHandler = config.onPermissionRequest;
    this.hooks = config.hooks;
    if (config.onEvent) this.handlers.add(config.onEvent);
  }

  /** Every event, or the events of one type. Returns the unsubscribe function. */
  on(handler: SessionEventHandler): () => void;
  on(type: string, handler: SessionEventHandler): () => void;
  on(typeOrHandler: string | SessionEventHandler, handler?: SessionEventHandler): () => void {
    if (typeof typeOrHandler === "function") {
      this.handlers.add(typeOrHandler);
      return () => this.handlers.delete(typeOrHandler);
    }
    const set = this.typed.get(typeOrHandler) ?? new Set();
    set.add(handler!);
    this.typed.set(typeOrHandler, set);
    return () => set.delete(handler!);
  }

  /** Sends a message; returns its id. While a run goes on it follows up ("enqueue") or steers ("immediate"). */
  async send(message: string | SendOptions): Promise<string> {
    const options = typeof message === "string" ? { prompt: message } : message;
    const result = await this.rpc.request<{ messageId: string }>("session.send", {
      sessionId: this.sessionId,
      prompt: options.prompt,
      ...(options.mode ? { mode: options.mode } : {}),
      ...(options.attachments ? { attachments: options.attachments } : {}),
    });
    return result.messageId;
  }

  /**
   * Sends a message and resolves when the session goes idle, with the last assistant.message
   * event (undefined if there was none). Rejects on session.error or after `timeoutMs`.
   */
  async sendAndWait(message: string | SendOptions, timeoutMs = 60_000): Promise<SessionEvent | undefined> {
    let last: SessionEvent | undefined;
    let settle!: (outcome: { error?: Error }) => void;
    const outcome = new Promise<{ error?: Error }>((resolve) => {
      settle = resolve;
    });
    const off = this.on((event) => {
      if (event.type === "assistant.message") last = event;
      else if (event.type === "session.idle") settle({});
      else if (event.type === "session.error")
        settle({ error: new Error(String(event.data.message ?? "session error")) });
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await this.send(message);
      const timeout = new Promise<{ error?: Error }>((resolve) => {
        timer = setTimeout(
          () => resolve({ error: new Error(`Timeout after ${timeoutMs}ms waiting for session.idle`) }),
          timeoutMs,
        );
      });
      const { error } = await Promise.race([outcome, timeout]);
      if (error) throw error;
      return last;
    } finally {
      clearTimeout(timer);
      off();
    }
  }

  async abort(): Promise<void> {
    await this.rpc.request("session.abort", { sessionId: this.sessionId });
  }

  /** The session's persisted events, oldest first. */
  async getMessages(): Promise<SessionEvent[]> {
    const result = await this.rpc.request<{ events: SessionEvent[] }>("session.getMessages", {
      sessionId: this.sessionId,
    });
    return result.events;
  }

  async setModel(model: string): Promise<void> {
    await this.rpc.request("session.model.switchTo", { sessionId: this.sessionId, modelId: model });
  }

  /** Leaves the session (it stays on the server's disk and can be resumed). */
  async disconnect(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.rpc.request("session.detach", { sessionId: this.sessionId });
    } finally {
      this.markClosed();
    }
  }

  /** @internal */
  markClosed(): void {
    this.closed = true;
    for (const controller of this.running.values()) controller.abort();
    this.running.clear();
    this.onClose();
  }

  /** @internal An event from the server. */
  dispatch(event: SessionEvent): void {
    if (event.type === "external_tool.requested") void this.runTool(event);
    else if (event.type === "external_tool.completed")
      this.running.get(String(event.data.requestId))?.abort();
    else if (event.type === "permission.requested") void this.askPermission(event);
    for (const handler of this.typed.get(event.type) ?? []) safely(handler, event);
    for (const handler of this.handlers) safely(handler, event);
  }

  /** @internal A hooks.invoke request from the server. */
  async invokeHook(hookType: string, input: unknown): Promise<unknown> {
    const name = HOOKS[hookType];
    const hook = name ? this.hooks?.[name] : undefined;
    if (!hook) return undefined;
    try {
      return await (hook as (input: unknown) => unknown)(input);
    } catch {
      return undefined;
    }
  }

  private async runTool(event: SessionEvent): Promise<void> {
    const requestId = String(event.data.requestId);
    const tool = this.tools.get(String(event.data.toolName));
    if (!tool || this.closed) return;
    const controller = new AbortController();
    this.running.set(requestId, controller);
    let answer: Record<string, unknown>;
    try {
      const value = await tool.handler(event.data.arguments as never, {
        sessionId: this.sessionId,
        toolCallId: String(event.data.toolCallId),
        toolName: tool.name,
        signal: controller.signal,
      });
      answer = {
        result: typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value),
      };
    } catch (error) {
      answer = { error: error instanceof Error ? error.message : String(error) };
    } finally {
      this.running.delete(requestId);
    }
    if (controller.signal.aborted || this.closed) return;
    await this.rpc
      .request("session.tools.handlePendingToolCall", { sessionId: this.sessionId, requestId, ...answer })
      .catch(() => {});
  }

  private async askPermission(event: SessionEvent): Promise<void> {
    if (!this.permissionHandler || this.closed) return;
    const request = event.data.permissionRequest as PermissionRequest;
    let result: unknown;
    try {
      result = await this.permissionHandler(request, { sessionId: this.sessionId });
    } catch (error) {
      result = {
        kind: "reject",
        feedback: `the permission handler failed: ${(error as Error)?.message ?? error}`,
      };
    }
    await this.rpc
      .request("session.permissions.handlePendingPermissionRequest", {
        sessionId: this.sessionId,
        requestId: event.data.requestId,
        result,
      })
      .catch(() => {});
  }
}

function safely(handler: SessionEventHandler, event: SessionEvent): void {
  try {
    handler(event);
  } catch {
    // A listener's failure is its own; the others still hear the event.
  }
}
