// One open session of the server: a persisted Agent, its journal, the client attached to it, and
// run control (one run at a time; messages sent meanwhile steer it or follow it up). Everything a
// protocol shows comes out of `journal` as ServerEvents.

import { randomUUID } from "node:crypto";
import {
  type Agent,
  type AgentEvent,
  type AgentMessage,
  type AnyAgentTool,
  HookRegistry,
  type RunStrategy,
} from "@tern/agent";
import type { ImageContent, Model, UserMessage } from "@tern/ai";
import {
  createSessionAgent,
  type EventEntry,
  isEphemeralEvent,
  type Session,
  type SessionBinding,
} from "@tern/session";
import { PermissionPolicy, Workspace } from "@tern/tools";
import {
  type AgentConfig,
  type AgentSetup,
  type ClientAttachment,
  type ClientToolResult,
  type ClientToolSpec,
  EngineError,
  type PermissionAnswer,
  type SessionInfo,
  type SessionServerEvent,
  type SystemMessage,
} from "../types.js";
import type { BridgeContext } from "./bridge.js";
import { notifyClientHook, registerClientHooks } from "./client-hooks.js";
import { clientTool } from "./client-tools.js";
import { Journal } from "./journal.js";
import { PendingRequests } from "./pending.js";
import { permissionHook, policyAsker } from "./permissions.js";
import { sessionInfo } from "./session-info.js";

export interface ServerSessionInit {
  session: Session;
  model: Model;
  cwd: string;
  systemMessage?: SystemMessage;
  /** The client's choice of strategy; wins over the server's `configureAgent` default. */
  strategy?: RunStrategy;
  /** "startup" for a new session, "resume" for one opened from the store. */
  source: "startup" | "resume";
  configureAgent?: (setup: AgentSetup) => AgentConfig;
  keepRuns?: number;
  now?: () => number;
  /** How long a permission question waits before it is denied. Default 5 minutes. */
  permissionTimeoutMs?: number;
  /** Throws when the server may not start one more run now (its cap on concurrent runs). */
  admit?: () => void;
}

const DEFAULT_PERMISSION_TIMEOUT_MS = 5 * 60_000;

export type SendMode = "enqueue" | "immediate";

export class ServerSession {
  readonly journal: Journal;
  readonly agent: Agent;
  readonly cwd: string;
  /** The client's choice of strategy, if it made one (listed with the session). */
  readonly strategy: RunStrategy | undefined;
  private readonly session: Session;
  private readonly binding: SessionBinding;
  private readonly pending = new PendingRequests();
  private readonly serverTools: AnyAgentTool[];
  private readonly clientSpecs = new Map<string, ClientToolSpec>();
  private readonly ctx: BridgeContext;
  private readonly now: () => number;
  private readonly admit: () => void;
  /** Permission questions asked and not answered yet, by request id. */
  private readonly questions = new Map<string, Extract<SessionServerEvent, { type: "permission_request" }>>();
  private client: ClientAttachment | undefined;
  private running: Promise<void> | undefined;
  private newestRunFrom: number | undefined;
  private newestRunFirst: { timestamp: number } | undefined;
  private lastAborted = false;
  private closed = false;

  constructor(init: ServerSessionInit) {
    this.session = init.session;
    this.cwd = init.cwd;
    this.strategy = init.strategy;
    this.now = init.now ?? Date.now;
    this.admit = init.admit ?? (() => {});
    this.journal = new Journal(init.keepRuns ?? 1, this.now);
    this.ctx = {
      sessionId: this.session.id,
      cwd: this.cwd,
      attachment: () => this.client,
      publish: (event) => this.publish(event),
      pending: this.pending,
      permissionTimeoutMs: init.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS,
      newId: randomUUID,
      now: this.now,
    };
    const hooks = new HookRegistry();
    registerClientHooks(hooks, this.ctx);
    const setup: AgentSetup = {
      sessionId: this.session.id,
      session: this.session,
      cwd: this.cwd,
      model: init.model,
      hooks,
    };
    if (init.systemMessage) setup.systemMessage = init.systemMessage;
    const { tools = [], systemPrompt, permissions, ...options } = init.configureAgent?.(setup) ?? {};
    this.serverTools = tools;
    const policy = permissions
      ? new PermissionPolicy({
          ...permissions,
          tools,
          ask: policyAsker(this.ctx, (name) => tools.find((tool) => tool.name === name)?.description ?? ""),
        })
      : undefined;
    hooks.register(permissionHook(this.ctx, () => this.clientSpecs, policy));
    const prompt = composeSystemPrompt(systemPrompt, init.systemMessage);
    const { agent, binding } = createSessionAgent(this.session, {
      ...options,
      model: init.model,
      tools,
      hooks,
      sessionSource: init.source,
      ...(init.strategy !== undefined ? { strategy: init.strategy } : {}),
      ...(prompt !== undefined ? { systemPrompt: prompt } : {}),
    });
    this.agent = agent;
    this.binding = binding;
    // After the recorder's listener: a persisted event is in the log (with its seq) when we see it.
    agent.subscribe(this.onAgentEvent);
  }

  get id(): string {
    return this.session.id;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  get model(): Model {
    return this.agent.state.model;
  }

  get messages(): readonly AgentMessage[] {
    return this.agent.state.messages;
  }

  /**
   * Where the newest run (the one the journal replays first) begins in `messages`: its first
   * user message, found again after a compaction inside the run rebuilt the list.
   */
  get runFrom(): number {
    const first = this.newestRunFirst;
    if (first) {
      const index = this.messages.findIndex(
        (message) => message.role === "user" && message.timestamp === first.timestamp,
      );
      if (index >= 0) return index;
    }
    return Math.min(this.newestRunFrom ?? this.messages.length, this.messages.length);
  }

  /** This session as `list` shows it, from memory. */
  info(): SessionInfo {
    return sessionInfo(this.session, {
      running: this.isRunning,
      model: this.model.id,
      ...(this.strategy !== undefined ? { strategy: this.strategy } : {}),
    });
  }

  /** The persisted event log, messages filled in. */
  persistedEvents(): EventEntry[] {
    return this.session.eventsAfter(0);
  }

  get lastEventSeq(): number {
    return this.session.lastEventSeq;
  }

  /** Permission questions waiting for an answer, oldest first. */
  openQuestions(): Extract<SessionServerEvent, { type: "permission_request" }>[] {
    return [...this.questions.values()];
  }

  /** Persists a server event and hands it to the journal. */
  publish(event: SessionServerEvent): void {
    if (event.type === "permission_request") this.questions.set(event.requestId, event);
    if (event.type === "permission_result") this.questions.delete(event.requestId);
    if (event.type === "idle" || this.session.readOnly) {
      this.journal.append(event);
      return;
    }
    const stored = this.session.appendEvent(event);
    this.journal.append(event, stored.seq);
  }

  // ---------------------------------------------------------------- the client

  /** Attaches a client (replacing any other): its tools join the session's tools. */
  attach(client: ClientAttachment): void {
    this.client = client;
    this.clientSpecs.clear();
    for (const spec of client.tools ?? []) this.clientSpecs.set(spec.name, spec);
    const clientTools = [...this.clientSpecs.values()].map((spec) => clientTool(spec, this.ctx));
    const names = new Set(this.clientSpecs.keys());
    this.agent.setTools([...this.serverTools.filter((tool) => !names.has(tool.name)), ...clientTools]);
  }

  /** The client left: what it was asked is settled as failed; its tools stay listed but fail. */
  detach(client?: ClientAttachment): void {
    if (client && this.client !== client) return;
    notifyClientHook(this.ctx, "sessionEnd", { reason: "user_exit" });
    this.client = undefined;
    this.pending.cancelAll("the client disconnected");
  }

  get attached(): ClientAttachment | undefined {
    return this.client;
  }

  answerToolCall(requestId: string, result: ClientToolResult): boolean {
    return this.pending.answer(requestId, result);
  }

  answerPermission(requestId: string, answer: PermissionAnswer): boolean {
    return this.pending.answer(requestId, answer);
  }

  // ---------------------------------------------------------------- runs

  /**
   * Sends a user message. While a run goes on it steers the run ("immediate": after the current
   * tool batch) or follows it up ("enqueue": when it would stop); otherwise it starts a run.
   */
  send(text: string, mode: SendMode = "enqueue", images: ImageContent[] = []): void {
    this.checkOpen();
    const message: string | UserMessage =
      images.length === 0
        ? text
        : { role: "user", content: [{ type: "text", text }, ...images], timestamp: Date.now() };
    if (this.running) {
      if (mode === "immediate") this.agent.steer(message);
      else this.agent.followUp(message);
      return;
    }
    this.start(message);
  }

  /** The workspace the session's tools are confined to, with their read rules (for attachments). */
  get workspace(): Workspace {
    for (const tool of this.serverTools) {
      const ws = (tool as { workspace?: Workspace }).workspace;
      if (ws) return ws;
    }
    return Workspace.open(this.cwd);
  }

  /** Starts a run; a run already going is an EngineError("busy"). */
  run(text: string): void {
    this.checkOpen();
    if (this.running)
      throw new EngineError("busy", `session ${this.id} is already running; interrupt or abort it`);
    this.start(text);
  }

  /** Continues an interrupted run (after a resume); nothing to do when the model had the last word. */
  continue(): void {
    this.checkOpen();
    const last = this.agent.state.messages.at(-1) as { role?: unknown } | undefined;
    if (this.running || !last || last.role === "assistant") return;
    this.start(undefined);
  }

  /** A message for the run going on, delivered at the next turn boundary. */
  interrupt(text: string): void {
    this.checkOpen();
    if (!this.running) throw new EngineError("idle", `session ${this.id} has no run to interrupt`);
    this.agent.steer(text);
  }

  /** Aborts the run going on; false when there is none. */
  abort(): boolean {
    if (!this.running) return false;
    this.agent.clearQueues();
    this.agent.abort();
    this.pending.cancelAll("the run was aborted");
    return true;
  }

  setModel(model: Model): void {
    this.agent.setModel(model);
  }

  /** Resolves when no run is going. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Aborts a run, stops persisting and releases the session's lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.abort();
    await this.idle();
    this.detach();
    this.binding.detach();
    await this.session.close();
  }

  private start(text: string | UserMessage | undefined): void {
    this.admit();
    this.newestRunFrom = this.agent.state.messages.length;
    this.newestRunFirst = undefined;
    this.lastAborted = false;
    const run = this.drive(text).finally(() => {
      this.running = undefined;
      this.publish({ type: "idle", aborted: this.lastAborted });
    });
    this.running = run;
  }

  private async drive(text: string | UserMessage | undefined): Promise<void> {
    try {
      if (text === undefined) await this.agent.continue();
      else await this.agent.prompt(text);
    } catch (error) {
      this.publish({ type: "run_failed", message: error instanceof Error ? error.message : String(error) });
    }
  }

  private readonly onAgentEvent = (event: AgentEvent): void => {
    // message_start is logged with its message_end (the recorder holds it back); deltas never.
    const persisted = !isEphemeralEvent(event) && event.type !== "message_start" && !this.binding.error;
    this.journal.append(event, persisted ? this.session.lastEventSeq : undefined);
    if (
      event.type === "message_end" &&
      event.message.role === "user" &&
      this.newestRunFrom !== undefined &&
      !this.newestRunFirst
    )
      this.newestRunFirst = event.message as { timestamp: number };
    if (event.type === "agent_end") {
      this.lastAborted = event.stopReason === "aborted";
      if (event.stopReason === "error")
        notifyClientHook(this.ctx, "errorOccurred", {
          error: event.errorMessage ?? "the run failed",
          errorContext: "model_call",
          recoverable: false,
        });
    }
  };

  private checkOpen(): void {
    if (this.closed) throw new EngineError("not_found", `session ${this.id} is closed`);
  }
}

function composeSystemPrompt(
  server: string | undefined,
  client: SystemMessage | undefined,
): string | undefined {
  if (!client?.content) return server;
  if (client.mode === "replace" || server === undefined) return client.content;
  return `${server}\n\n${client.content}`;
}
