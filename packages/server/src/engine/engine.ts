// The engine every protocol shares: it opens sessions (new ones, or resumed from the store), keeps
// the open ones, and lists, loads and deletes the stored ones. Protocols hold HostedSessions and
// read their journals; where runs execute is the RunHost's business (run-host.ts: in this process
// by default, queued on a cluster). Nothing here knows HTTP or JSON-RPC.

import { randomUUID } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { type AgentMessage, isRunStrategy, RUN_STRATEGIES, type RunStrategy } from "@tern/agent";
import { type Model, Redactor } from "@tern/ai";
import {
  type EventEntry,
  FileSessionStore,
  type Session,
  SessionError,
  type SessionStore,
  type SessionSummary,
  ternHome,
} from "@tern/session";
import {
  type ClientAttachment,
  EngineError,
  type EngineOptions,
  type ModelCatalog,
  type SessionInfo,
  type SystemMessage,
} from "../types.js";
import { type HostedSession, inProcessHost, type RunHost } from "./run-host.js";
import type { ServerSessionInit } from "./server-session.js";

export interface CreateOptions {
  /** A model id (or provider/id); default: the catalog's default. */
  model?: string;
  cwd?: string;
  name?: string;
  systemMessage?: SystemMessage;
  /** How the session's prompts run: "loop" (default), "plan" or "auto" (plan mode, `@tern/agent`). */
  strategy?: string;
  /** Use this id (Copilot clients choose their session ids). */
  sessionId?: string;
  /** Sees the session before its first event (session_start): attach a client here. */
  beforeStart?: (session: HostedSession) => void;
}

export interface OpenOptions {
  model?: string;
  systemMessage?: SystemMessage;
  strategy?: string;
  /** Sees a resumed session before its session_resume event (not called for one already open). */
  beforeStart?: (session: HostedSession) => void;
}

export class Engine {
  readonly models: ModelCatalog;
  readonly store: SessionStore;
  readonly cwd: string;
  /** Where the sessions' runs execute. */
  readonly host: RunHost;
  /** Real paths a session's cwd must be inside. */
  private readonly roots: string[];
  private readonly live = new Map<string, HostedSession>();
  private readonly opening = new Map<string, Promise<HostedSession>>();
  /** The id the default store gives its next session (see `create`). */
  private chosenId: string | undefined;

  /** Where sessions' checkpoints live (`<home>/checkpoints/<id>`). */
  readonly home: string;

  /** What every frame a client receives passes (SSE, JSON-RPC). */
  readonly redactor: Redactor;

  constructor(private readonly options: EngineOptions) {
    this.redactor = options.redactor ?? new Redactor(options.secrets);
    this.models = options.models;
    this.cwd = resolve(options.cwd ?? process.cwd());
    this.home = options.home ?? ternHome();
    this.host = options.host ?? inProcessHost;
    this.roots = (options.allowRoots ?? [this.cwd]).map((root) => realPath(resolve(root)) ?? resolve(root));
    const newSessionId = () => this.chosenId ?? randomUUID();
    this.store =
      typeof options.store === "function"
        ? options.store(newSessionId)
        : (options.store ??
          new FileSessionStore({
            ...(options.home !== undefined ? { home: options.home } : {}),
            ...(options.fsync !== undefined ? { fsync: options.fsync } : {}),
            newSessionId,
          }));
  }

  /** Open sessions. */
  get sessions(): HostedSession[] {
    return [...this.live.values()];
  }

  get(id: string): HostedSession | undefined {
    return this.live.get(id);
  }

  /**
   * The session to answer a question of: the open one, or (when runs execute elsewhere, so
   * opening only watches) the stored one opened here.
   */
  async answering(id: string): Promise<HostedSession | undefined> {
    return this.live.get(id) ?? (this.host.remote ? this.open(id) : undefined);
  }

  /** Throws an EngineError("invalid") when the run host cannot serve what the client brings. */
  checkClient(client: ClientAttachment): void {
    this.host.checkClient(client);
  }

  async create(options: CreateOptions = {}): Promise<HostedSession> {
    const model = this.model(options.model);
    const cwd = this.checkCwd(options.cwd ?? this.cwd, "the cwd");
    if (
      options.sessionId !== undefined &&
      (this.live.has(options.sessionId) || (await this.exists(options.sessionId)))
    )
      throw new EngineError("invalid", `session "${options.sessionId}" already exists; resume it instead`);
    let session: Awaited<ReturnType<SessionStore["create"]>>;
    // The default store asks `newSessionId` synchronously at the start of create(): no other
    // create can slip in between setting the id and its use.
    this.chosenId = options.sessionId;
    try {
      session = await this.store.create({
        cwd,
        ...(options.name !== undefined ? { name: options.name } : {}),
      });
    } catch (error) {
      throw engineError(error);
    } finally {
      this.chosenId = undefined;
    }
    if (options.sessionId !== undefined && session.id !== options.sessionId) {
      await session.close();
      throw new EngineError("invalid", "this session store cannot create sessions with a chosen id");
    }
    const open = await this.adopt(session, () => ({
      session,
      model,
      cwd,
      source: "startup",
      ...this.sessionDefaults(),
      ...(options.systemMessage ? { systemMessage: options.systemMessage } : {}),
      ...strategyOf(options.strategy),
    }));
    options.beforeStart?.(open);
    open.publish({
      type: "session_start",
      sessionId: open.id,
      cwd,
      model: model.id,
      startTime: session.header.created,
    });
    return open;
  }

  /** The open session, or the stored one resumed (lock taken, an interrupted tail repaired). */
  async open(id: string, options: OpenOptions = {}): Promise<HostedSession> {
    checkId(id);
    const current = this.live.get(id);
    if (current) {
      if (options.model !== undefined) current.setModel(this.model(options.model));
      return current;
    }
    let opening = this.opening.get(id);
    if (!opening) {
      opening = this.resume(id, options).finally(() => this.opening.delete(id));
      this.opening.set(id, opening);
    }
    return opening;
  }

  /** Stored sessions, newest first, with the open ones' live state. */
  async list(): Promise<SessionInfo[]> {
    let summaries: SessionSummary[];
    try {
      summaries = await this.store.list();
    } catch (error) {
      throw engineError(error);
    }
    // Sessions of other directories are not this server's to show.
    return summaries
      .filter((summary) => !summary.error && this.inRoots(summary.cwd))
      .map((summary) => this.info(summary));
  }

  async describe(id: string): Promise<SessionInfo> {
    checkId(id);
    const open = this.live.get(id);
    if (open) return open.info();
    const found = (await this.list()).find((info) => info.id === id);
    if (!found) throw new EngineError("not_found", `no session "${id}"`);
    return found;
  }

  /** The persisted event log of a session, open or not. */
  async history(id: string): Promise<EventEntry[]> {
    const open = this.live.get(id);
    if (open) return open.persistedEvents();
    return (await this.loadStored(id)).eventsAfter(0);
  }

  /** The conversation as the model sees it. */
  async messages(id: string): Promise<readonly AgentMessage[]> {
    const open = this.live.get(id);
    if (open) return open.messages;
    return (await this.loadStored(id)).buildContext().messages;
  }

  /** Closes an open session (its data stays in the store). */
  async close(id: string): Promise<void> {
    const open = this.live.get(id);
    if (!open) return;
    this.live.delete(id);
    await open.close();
  }

  async delete(id: string): Promise<void> {
    checkId(id);
    if (!this.live.has(id)) await this.loadStored(id);
    await this.close(id);
    try {
      await this.store.delete(id);
    } catch (error) {
      throw engineError(error, id);
    }
  }

  /** Closes every open session. */
  async shutdown(): Promise<void> {
    await Promise.all([...this.live.keys()].map((id) => this.close(id)));
  }

  /** A model of the catalog; an unknown id is an EngineError("invalid") naming the known ones. */
  model(id?: string): Model {
    const model = this.models.resolve(id);
    if (model) return model;
    const known = this.models
      .list()
      .map((m) => m.id)
      .join(", ");
    throw new EngineError(
      "invalid",
      id === undefined
        ? "the server has no default model"
        : `unknown model "${id}"; known: ${known || "none"}`,
    );
  }

  private async resume(id: string, options: OpenOptions): Promise<HostedSession> {
    let resumed: Awaited<ReturnType<RunHost["load"]>>;
    try {
      resumed = await this.host.load(this.store, id);
    } catch (error) {
      throw engineError(error, id);
    }
    const { session, context } = resumed;
    let model: Model;
    try {
      this.checkCwd(session.header.cwd, `session ${id}'s directory`);
      model =
        options.model !== undefined
          ? this.model(options.model)
          : ((context.model && this.models.resolve(context.model.modelId)) ?? this.model());
    } catch (error) {
      await session.close();
      throw error;
    }
    const open = await this.adopt(session, () => ({
      session,
      model,
      cwd: session.header.cwd,
      source: "resume",
      ...this.sessionDefaults(),
      ...(options.systemMessage ? { systemMessage: options.systemMessage } : {}),
      ...strategyOf(options.strategy),
    }));
    options.beforeStart?.(open);
    open.publish({
      type: "session_resume",
      sessionId: id,
      cwd: session.header.cwd,
      model: model.id,
      resumeTime: new Date((this.options.now ?? Date.now)()).toISOString(),
      eventCount: resumed.lastEventSeq,
    });
    return open;
  }

  /** Opens the hosted session; if that fails (configureAgent threw), the stored session is released. */
  private async adopt(session: Session, init: () => ServerSessionInit): Promise<HostedSession> {
    session.addSecrets(this.options.secrets ?? []);
    let open: HostedSession;
    try {
      open = await this.host.open(init());
    } catch (error) {
      await session.close();
      throw error;
    }
    this.live.set(open.id, open);
    return open;
  }

  private sessionDefaults() {
    const { configureAgent, keepRuns, now, permissionTimeoutMs, maxRuns } = this.options;
    return {
      ...(configureAgent ? { configureAgent } : {}),
      ...(keepRuns !== undefined ? { keepRuns } : {}),
      ...(now ? { now } : {}),
      ...(permissionTimeoutMs !== undefined ? { permissionTimeoutMs } : {}),
      ...(maxRuns !== undefined ? { admit: () => this.checkAdmission() } : {}),
    };
  }

  /** Throws EngineError("overloaded") when no run may start now (the cap on concurrent runs). */
  checkAdmission(): void {
    const { maxRuns } = this.options;
    if (maxRuns !== undefined && this.sessions.filter((open) => open.isRunning).length >= maxRuns)
      throw new EngineError(
        "overloaded",
        "the server runs as many runs as it may at once; try again shortly",
      );
  }

  /** A stored session, read-only; one from outside the allowed roots is "forbidden". */
  private async loadStored(id: string): Promise<Session> {
    checkId(id);
    let session: Session;
    try {
      session = await this.store.load(id);
    } catch (error) {
      throw engineError(error, id);
    }
    if (!this.inRoots(session.header.cwd))
      throw new EngineError("forbidden", `session ${id} belongs to a directory outside this server's`);
    return session;
  }

  private inRoots(dir: string): boolean {
    const real = realPath(dir);
    return real !== undefined && this.roots.some((root) => isInside(real, root));
  }

  /**
   * The directory as a real path when it exists and lies inside an allowed root (symlinks
   * followed, so a link cannot lead out). Errors name no server path.
   */
  private checkCwd(dir: string, what: string): string {
    const real = realPath(resolve(this.cwd, dir));
    if (real === undefined || !isDirectory(real))
      throw new EngineError("invalid", `${what} is not an existing directory on the server`);
    if (!this.inRoots(real))
      throw new EngineError("forbidden", `${what} is outside the directories this server may work in`);
    return real;
  }

  private async exists(id: string): Promise<boolean> {
    try {
      await this.store.load(id);
      return true;
    } catch (error) {
      if (error instanceof SessionError && error.code === "not_found") return false;
      throw engineError(error, id);
    }
  }

  private info(summary: SessionSummary): SessionInfo {
    const open = this.live.get(summary.id);
    const info: SessionInfo = {
      id: summary.id,
      cwd: summary.cwd,
      title: summary.title,
      created: summary.created,
      updated: summary.updated,
      messageCount: summary.messageCount,
      live: open !== undefined,
      running: open?.isRunning ?? false,
    };
    if (open) info.model = open.model.id;
    if (open?.strategy !== undefined) info.strategy = open.strategy;
    return info;
  }
}

/**
 * Store failures as EngineErrors that name the session, never a file on the server; anything
 * else passes through.
 */
export function engineError(error: unknown, id?: string): unknown {
  if (!(error instanceof SessionError)) return error;
  const session = id !== undefined ? `session "${id}"` : "the session";
  switch (error.code) {
    case "not_found":
      return new EngineError("not_found", id !== undefined ? `no session "${id}"` : "no such session");
    case "locked":
      return new EngineError("locked", `${session} is in use by another process`);
    case "invalid":
      return new EngineError("invalid", error.file ? `${session}: invalid request` : error.message);
    case "unavailable":
      return new EngineError("unavailable", "the session store is unavailable right now; try again shortly");
    case "corrupt":
    case "format":
      return new EngineError(
        "corrupt",
        `${session} cannot be read: its file is damaged${error.line !== undefined ? ` at line ${error.line}` : ""}`,
      );
    default:
      return error;
  }
}

/** Session ids are file names: anything else is a client's mistake, not a path to try. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function checkId(id: string): void {
  if (!SESSION_ID.test(id)) throw new EngineError("invalid", `invalid session id ${JSON.stringify(id)}`);
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** A client's strategy option, checked: an unknown name is the client's error, not a silent loop. */
function strategyOf(strategy: string | undefined): { strategy?: RunStrategy } {
  if (strategy === undefined) return {};
  if (!isRunStrategy(strategy))
    throw new EngineError("invalid", `unknown strategy "${strategy}": use ${RUN_STRATEGIES.join(", ")}`);
  return { strategy };
}
