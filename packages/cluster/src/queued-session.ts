// A session as a cluster node holds it: the protocols of `@tern/server` see the same journal as
// for a session run in-process, but its runs are jobs (queue.ts) that any worker executes, and the
// journal is fed from the database's copy of the session's log (event-feed.ts), numbered with the
// log's seqs, so every node shows the same stream with the same ids and `Last-Event-ID` resumes
// on any of them. The node never writes the session (the worker running it does): steering and
// interrupts go to that worker as messages that wait in the database until it takes them, aborts
// and permission answers as controls (held back while the run is still queued, and sent when a
// worker starts it: nobody would hear them before). The run is over when the feed
// says none of the session's runs is pending; the node then says `idle`, as a server does.
// Only persisted events travel: a finished message arrives whole, live token deltas do not.

import type { AgentMessage } from "@tern/agent";
import type { ImageContent, Model } from "@tern/ai";
import {
  type ClientAttachment,
  EngineError,
  type HostedSession,
  Journal,
  type PermissionAnswer,
  type PermissionRequestEvent,
  type RunHost,
  type SendMode,
  type ServerEvent,
  type ServerSessionInit,
  type SessionInfo,
  type SessionServerEvent,
  sessionInfo,
} from "@tern/server";
import type { EventEntry, Session, SessionStore } from "@tern/session";
import { Workspace } from "@tern/tools";
import type { Pool } from "pg";
import { type Control, type RunMessage, sendControl } from "./control.js";
import type { EventFeed, FeedUpdate } from "./event-feed.js";
import { enqueueRun } from "./queue.js";

export interface QueuedContext {
  pool: Pool;
  feed: EventFeed;
  store: SessionStore;
  /** The host's own check of what a client brings. */
  checkClient: RunHost["checkClient"];
  log: (line: string) => void;
}

export class QueuedSession implements HostedSession {
  readonly journal: Journal;
  readonly id: string;
  readonly cwd: string;
  readonly strategy = undefined;
  private stored: Session;
  /** `stored`'s messages, built once per read of the session (refresh). */
  private storedMessages: readonly AgentMessage[] | undefined;
  /** A session created here, still open for writing until its first event is written. */
  private writable: Session | undefined;
  private released: Promise<void> = Promise.resolve();
  private currentModel: Model;
  private readonly questions = new Map<string, PermissionRequestEvent>();
  private runs = { pending: 0, total: 0 };
  /** Runs being submitted from here, not yet in the database. */
  private submitting = 0;
  private running = false;
  private lastAborted = false;
  private lastSeq = 0;
  /** A worker runs the session now: an agent_start without its end in the feed. */
  private onWorker = false;
  /** Controls for a run still queued: sent when a worker starts it (it would miss them before). */
  private deferred: Control[] = [];
  private client: ClientAttachment | undefined;
  private idleWaiters: (() => void)[] = [];
  private updates: Promise<void> = Promise.resolve();
  private unsubscribe: () => void = () => {};
  private closed = false;

  private constructor(
    private readonly ctx: QueuedContext,
    init: ServerSessionInit,
  ) {
    this.stored = init.session;
    if (!init.session.readOnly) this.writable = init.session;
    this.id = init.session.id;
    this.cwd = init.cwd;
    this.currentModel = init.model;
    this.journal = new Journal(init.keepRuns ?? 1, init.now);
    for (const { seq, event } of init.session.eventsAfter(0)) this.take(seq, event as ServerEvent);
  }

  /** Opens the session's feed; resolves once the journal holds what the database has. */
  static async open(ctx: QueuedContext, init: ServerSessionInit): Promise<QueuedSession> {
    const session = new QueuedSession(ctx, init);
    await new Promise<void>((ready) => {
      session.unsubscribe = ctx.feed.subscribe(session.id, session.lastSeq, (update) => {
        session.updates = session.updates.then(() => session.apply(update)).then(ready);
      });
    });
    return session;
  }

  get isRunning(): boolean {
    return this.running;
  }

  get model(): Model {
    return this.currentModel;
  }

  get messages(): readonly AgentMessage[] {
    this.storedMessages ??= this.stored.buildContext().messages;
    return this.storedMessages;
  }

  get runFrom(): number {
    const first = this.journal
      .fromRunOf()
      .find((entry) => entry.event.type === "message_end" && entry.event.message.role === "user");
    const stamp = first?.event.type === "message_end" ? first.event.message.timestamp : undefined;
    const messages = this.messages;
    const index = messages.findIndex((message) => message.role === "user" && message.timestamp === stamp);
    return index >= 0 ? index : messages.length;
  }

  get workspace(): Workspace {
    return Workspace.open(this.cwd);
  }

  get attached(): ClientAttachment | undefined {
    return this.client;
  }

  info(): SessionInfo {
    return sessionInfo(this.stored, { running: this.running, model: this.model.id });
  }

  persistedEvents(): EventEntry[] {
    return this.stored.eventsAfter(0);
  }

  openQuestions(): PermissionRequestEvent[] {
    return [...this.questions.values()];
  }

  /**
   * A new session's first event (session_start) is written here, and the session released for
   * the workers; anything else a node says (session_resume, a failed submission) is the journal's
   * only, numbered with the newest seq.
   */
  publish(event: SessionServerEvent): void {
    const writable = this.writable;
    if (!writable) {
      this.note(event);
      this.journal.append(event, undefined, this.journal.lastId);
      return;
    }
    this.writable = undefined;
    this.take(writable.appendEvent(event).seq, event);
    this.released = writable
      .flush()
      .then(() => writable.close())
      .then(() => this.refresh());
  }

  attach(client: ClientAttachment): void {
    this.ctx.checkClient(client);
    this.client = client;
  }

  detach(client?: ClientAttachment): void {
    if (!client || this.client === client) this.client = undefined;
  }

  answerToolCall(): boolean {
    return false; // no client tools on a cluster (checkClient refuses them)
  }

  answerPermission(requestId: string, answer: PermissionAnswer): boolean {
    if (!this.questions.has(requestId)) return false;
    this.control({
      kind: "permission",
      requestId,
      allow: answer.allow,
      ...(answer.remember ? { remember: true } : {}),
      ...(answer.reason ? { reason: answer.reason } : {}),
    });
    return true;
  }

  send(text: string, mode: SendMode = "enqueue", images: ImageContent[] = []): void {
    this.checkOpen();
    if (images.length > 0)
      throw new EngineError("invalid", "a cluster node does not carry image attachments to its workers");
    if (this.running && mode === "immediate") this.message({ kind: "steer", text });
    else this.submit(text); // a follow-up is the session's next job: its queue runs them in turn
  }

  run(text: string): void {
    this.checkOpen();
    if (this.running)
      throw new EngineError("busy", `session ${this.id} is already running; interrupt or abort it`);
    this.submit(text);
  }

  /** Nothing to do: a worker that takes an interrupted run over continues it itself. */
  continue(): void {}

  interrupt(text: string): void {
    this.checkOpen();
    if (!this.running) throw new EngineError("idle", `session ${this.id} has no run to interrupt`);
    this.message({ kind: "interrupt", text });
  }

  abort(): boolean {
    if (!this.running) return false;
    this.forRun({ kind: "abort" });
    return true;
  }

  setModel(model: Model): void {
    if (model.id === this.currentModel.id) return;
    throw new EngineError(
      "invalid",
      "a cluster node's workers run each session with its own model; switching models is not offered",
    );
  }

  async idle(): Promise<void> {
    if (this.running) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops watching; the session's runs go on on their workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    await this.released;
    await this.writable?.close();
    this.finishIdle();
  }

  private submit(text: string): void {
    this.submitting++;
    this.running = true;
    void (async () => {
      try {
        await this.released;
        await enqueueRun(this.ctx.pool, this.id, text);
        // What the database holds now; a read of the feed from before this is stale (apply).
        this.runs = { pending: this.runs.pending + 1, total: this.runs.total + 1 };
      } catch (error) {
        this.ctx.log(`session ${this.id}: a run could not be submitted: ${String(error)}`);
        this.publish({ type: "run_failed", message: "the run could not be submitted to the cluster" });
      } finally {
        this.submitting--;
        this.updates = this.updates.then(() => this.settle());
      }
    })();
  }

  private async apply(update: FeedUpdate): Promise<void> {
    for (const { seq, event } of update.events) this.take(seq, event as ServerEvent);
    if (update.runs.total >= this.runs.total) this.runs = update.runs;
    await this.settle();
  }

  /** Running while a run is pending; the end of the last one is this node's `idle`. */
  private async settle(): Promise<void> {
    if (this.submitting > 0 || this.runs.pending > 0) {
      this.running = true;
      return;
    }
    if (!this.running) return;
    await this.refresh();
    this.running = false;
    this.deferred = []; // the runs they were for are over
    this.journal.append({ type: "idle", aborted: this.lastAborted }, undefined, this.journal.lastId);
    this.finishIdle();
  }

  /** One persisted event, once. */
  private take(seq: number, event: ServerEvent): void {
    if (seq <= this.lastSeq) return;
    this.lastSeq = seq;
    this.note(event);
    if (event.type === "agent_end") this.lastAborted = event.stopReason === "aborted";
    this.journal.append(event, seq, seq);
    if (event.type === "agent_end" || event.type === "run_failed") this.onWorker = false;
    if (event.type === "agent_start") {
      this.onWorker = true;
      for (const control of this.deferred.splice(0)) this.control(control);
    }
  }

  /**
   * A message for the run going on: it waits in the database for the worker that runs the session,
   * so it is sent now even if no worker has started the run yet. One the run ended before taking
   * is refused there and becomes the session's next run, as on a single server.
   */
  private message(message: RunMessage): void {
    sendControl(this.ctx.pool, this.id, message).then(
      (recorded) => {
        if (!recorded && !this.closed) this.submit(message.text);
      },
      (error) => this.ctx.log(`session ${this.id}: a ${message.kind} was not sent: ${String(error)}`),
    );
  }

  /** An abort or a permission answer: now if a worker runs the session, else once one starts it. */
  private forRun(control: Control): void {
    if (this.onWorker) this.control(control);
    else this.deferred.push(control);
  }

  private note(event: ServerEvent): void {
    if (event.type === "permission_request") this.questions.set(event.requestId, event);
    if (event.type === "permission_result") this.questions.delete(event.requestId);
  }

  /** The session as the store has it now (messages and info follow the runs). */
  private async refresh(): Promise<void> {
    try {
      this.stored = await this.ctx.store.load(this.id);
      this.storedMessages = undefined;
    } catch (error) {
      this.ctx.log(`session ${this.id}: could not be read again: ${String(error)}`);
    }
  }

  private control(control: Control): void {
    sendControl(this.ctx.pool, this.id, control).catch((error: unknown) =>
      this.ctx.log(`session ${this.id}: a ${control.kind} control was not sent: ${String(error)}`),
    );
  }

  private finishIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private checkOpen(): void {
    if (this.closed) throw new EngineError("not_found", `session ${this.id} is closed`);
  }
}
