// The seam between the protocols and where a session's runs execute. Every protocol (FIM SSE,
// Copilot JSON-RPC, the web page) and the permission broker hold a HostedSession and read its
// journal; a RunHost decides what that session is. The in-process host (the default) runs each
// session's Agent in this process (ServerSession); a queued host (the cluster's) submits runs as
// jobs and feeds the journal from wherever they execute.

import type { AgentMessage, RunStrategy } from "@tern/agent";
import type { ImageContent, Model } from "@tern/ai";
import { type EventEntry, type ResumedSession, resumeSession, type SessionStore } from "@tern/session";
import type { Workspace } from "@tern/tools";
import type {
  ClientAttachment,
  ClientToolResult,
  PermissionAnswer,
  SessionInfo,
  SessionServerEvent,
} from "../types.js";
import type { Journal } from "./journal.js";
import { type SendMode, ServerSession, type ServerSessionInit } from "./server-session.js";

export type PermissionRequestEvent = Extract<SessionServerEvent, { type: "permission_request" }>;

/** One open session as the protocols see it, wherever its runs execute. */
export interface HostedSession {
  readonly id: string;
  readonly cwd: string;
  /** The client's choice of strategy, if it made one. */
  readonly strategy: RunStrategy | undefined;
  /** Every event of the session, as the protocols stream it. */
  readonly journal: Journal;
  readonly isRunning: boolean;
  readonly model: Model;
  readonly messages: readonly AgentMessage[];
  /** Where the newest run (the one the journal replays first) begins in `messages`. */
  readonly runFrom: number;
  /** The workspace the session's tools are confined to (client attachments are read in it). */
  readonly workspace: Workspace;
  readonly attached: ClientAttachment | undefined;
  info(): SessionInfo;
  persistedEvents(): EventEntry[];
  openQuestions(): PermissionRequestEvent[];
  /** Hands a server event to the journal (persisting it where the host can). */
  publish(event: SessionServerEvent): void;
  attach(client: ClientAttachment): void;
  detach(client?: ClientAttachment): void;
  answerToolCall(requestId: string, result: ClientToolResult): boolean;
  /** False when the session has no such open question. */
  answerPermission(requestId: string, answer: PermissionAnswer): boolean;
  send(text: string, mode?: SendMode, images?: ImageContent[]): void;
  /** Starts a run; one already going is an EngineError("busy"). */
  run(text: string): void;
  continue(): void;
  /** A message for the run going on; none going is an EngineError("idle"). */
  interrupt(text: string): void;
  /** Aborts the run going on; false when there is none. */
  abort(): boolean;
  setModel(model: Model): void;
  /** Resolves when no run is going. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export interface RunHost {
  /**
   * Whether runs execute outside this process. Opening a session of a remote host only reads and
   * watches it, so a protocol may open one just to answer a question asked there.
   */
  readonly remote: boolean;
  /** A stored session, opened as this host needs it (in-process: for writing, tail repaired). */
  load(
    store: SessionStore,
    id: string,
  ): Promise<Pick<ResumedSession, "session" | "context" | "lastEventSeq">>;
  /** The live session over a stored one (`init.session`, which it now owns). */
  open(init: ServerSessionInit): HostedSession | Promise<HostedSession>;
  /** Throws an EngineError("invalid") naming what of `client` this host cannot serve. */
  checkClient(client: ClientAttachment): void;
  /** What /healthz adds about the host's own parts (a cluster's database); `ok` false is a 503. */
  health?(): Promise<{ ok: boolean } & Record<string, unknown>>;
  /** One run as `GET /api/runs/:id` shows it (hosts that number runs); undefined: no such run. */
  describeRun?(runId: string): Promise<Record<string, unknown> | undefined>;
}

/** Runs every session's Agent in this process: today's engine. */
export const inProcessHost: RunHost = {
  remote: false,
  load: (store, id) => resumeSession(store, id),
  open: (init) => new ServerSession(init),
  checkClient: () => {},
};
