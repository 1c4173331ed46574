// Public contracts of @tern/session: the JSONL line shapes, the context built from them, the store.
// Every line is plain JSON so another tool (or a database-backed store) can read it without this code.
import type { Message, ThinkingLevel, UserContent } from "@tern/ai";
import type { Session } from "./session.js";

/** Bumped only for changes an older reader would misread; readers refuse newer versions. */
export const SESSION_FORMAT_VERSION = 1;

// ---------------------------------------------------------------- header

export interface ParentSessionRef {
  id: string;
  /** The parent's file, when it lived in a file store. */
  path?: string;
  /** The entry the fork was taken at (the last entry copied). */
  entryId?: string;
}

/** The first line of every session file. */
export interface SessionHeader {
  type: "session";
  version: number;
  id: string;
  /** ISO 8601. */
  created: string;
  cwd: string;
  parentSession?: ParentSessionRef;
  /**
   * What the host needs to continue the session (the CLI: provider, model, base URL, tool mode,
   * strategy, answer mode). Plain strings the host chooses; never a key or a header value.
   */
  settings?: Record<string, string>;
}

// ---------------------------------------------------------------- tree entries

interface EntryBase {
  id: string;
  /** null for a root entry. */
  parentId: string | null;
  /** ISO 8601. */
  timestamp: string;
}

export interface MessageEntry extends EntryBase {
  type: "message";
  message: Message;
}

/** The model used from here on. Only the name is stored: a Model may carry headers with secrets. */
export interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}

export interface ThinkingLevelChangeEntry extends EntryBase {
  type: "thinking_level_change";
  thinkingLevel: ThinkingLevel;
}

/**
 * Replaces the path before `firstKeptEntryId` by a summary in the context: pinned entries (before
 * the cut, in path order), then the summary, then the path from `firstKeptEntryId` on. The latest
 * compaction on a path wins; earlier ones are superseded (a compactor merges, not stacks).
 */
export interface CompactionEntry extends EntryBase {
  type: "compaction";
  /** The summary's text (what `list`/UIs show). */
  summary: string;
  /** null: nothing before the compaction is kept (besides pinned entries). */
  firstKeptEntryId: string | null;
  tokensBefore: number;
  tokensAfter?: number;
  pinnedEntryIds?: string[];
  /**
   * The exact messages the compactor put in place of the dropped part, when they are not simply
   * the default framing of `summary`; so a resumed session rebuilds the very context the agent had.
   */
  messages?: Message[];
  /** Free-form data of the compactor (e.g. its work card); never sent to the model. */
  details?: unknown;
}

/** What happened on the branch that was left (`fromId` was its leaf); sent to the model. */
export interface BranchSummaryEntry extends EntryBase {
  type: "branch_summary";
  fromId: string;
  summary: string;
}

/** Names `targetId`; `label: null` removes the name. The newest label entry for a target wins. */
export interface LabelEntry extends EntryBase {
  type: "label";
  targetId: string;
  label: string | null;
}

/** Data of an extension or client. Never sent to the model. */
export interface CustomEntry extends EntryBase {
  type: "custom";
  customType: string;
  data?: unknown;
}

/** Content an extension adds to the conversation; sent to the model as a user message. */
export interface CustomMessageEntry extends EntryBase {
  type: "custom_message";
  customType: string;
  content: string | UserContent[];
  /** Whether a UI shows it. Default true. */
  display?: boolean;
  details?: unknown;
}

export interface SessionInfoEntry extends EntryBase {
  type: "session_info";
  name: string;
}

/** Entries of the conversation tree: each has an id and a parent. */
export type SessionEntry =
  | MessageEntry
  | ModelChangeEntry
  | ThinkingLevelChangeEntry
  | CompactionEntry
  | BranchSummaryEntry
  | LabelEntry
  | CustomEntry
  | CustomMessageEntry
  | SessionInfoEntry;

export type SessionEntryType = SessionEntry["type"];

// ---------------------------------------------------------------- lines outside the tree

/** Any persisted run event: the agent's canonical events minus the ephemeral ones. */
export interface PersistedEvent {
  type: string;
  [field: string]: unknown;
}

/**
 * One event of the run log. Lives in the same file as the tree but outside it (no parentId), so
 * appending events never moves the leaf. `seq` starts at 1 and grows by 1 per session.
 */
export interface EventEntry {
  type: "event";
  seq: number;
  timestamp: string;
  event: PersistedEvent;
}

/**
 * Written by the next writer after a crash tore line `line` (a partial write with no newline).
 * The torn bytes stay in the file as evidence; this marker tells every later reader that the line
 * was seen and skipped on purpose, so it is reported as a warning, not treated as corruption.
 */
export interface RecoveredEntry {
  type: "recovered";
  line: number;
  bytes: number;
  timestamp: string;
}

export type SessionLine = SessionHeader | SessionEntry | EventEntry | RecoveredEntry;

// ---------------------------------------------------------------- context

export interface ModelRef {
  provider: string;
  modelId: string;
}

export interface SessionContext {
  messages: Message[];
  /** The entry each message came from (a compaction, branch summary or custom message for synthesised ones). */
  entryIds: string[];
  /** The latest model on the path (a model_change or the model of an assistant message). */
  model?: ModelRef;
  /** The latest thinking level on the path; "off" when none was set. */
  thinkingLevel: ThinkingLevel;
}

// ---------------------------------------------------------------- options and store

export type FsyncMode = "always" | "turn" | "never";

export interface SessionOptions {
  /** Milliseconds since the epoch. Default Date.now. */
  now?: () => number;
  /** New entry ids; must be unique within a session. Default 8 random hex digits. */
  newId?: () => string;
  /** New session ids. Default crypto.randomUUID. */
  newSessionId?: () => string;
  /** When appends reach the disk. "turn" (default): on flush(), which the agent bridge calls at each turn's end. */
  fsync?: FsyncMode;
  /** Extra literal secrets to redact (8 characters or more; every spelling), besides known key shapes and key-like environment variables. */
  secrets?: string[];
}

export interface SessionWarning {
  line: number;
  message: string;
}

export interface SessionSummary {
  id: string;
  path?: string;
  cwd: string;
  /** session_info name, else the first user message (shortened), else "". */
  title: string;
  created: string;
  /** ISO 8601 of the newest line. */
  updated: string;
  messageCount: number;
  /** USD: the sum of usage.cost.total over assistant messages. */
  cost: number;
  parentSession?: ParentSessionRef;
  /** Set when the session could not be read; the other fields are then best-effort. */
  error?: string;
}

export interface CreateSessionOptions {
  cwd?: string;
  name?: string;
  parentSession?: ParentSessionRef;
  /** Written into the header as `settings` (see SessionHeader). */
  settings?: Record<string, string>;
}

export interface ForkOptions {
  /** Copy the path up to this entry. Default: the source's leaf. */
  entryId?: string;
  cwd?: string;
}

/** What `/healthz` and `tern store status` say about a store. */
export interface StoreHealth {
  /** "file" for the JSONL store, "postgres" for @tern/store-pg. */
  kind: string;
  ok: boolean;
  /** The database's schema version (database stores). */
  schemaVersion?: number;
  /** Why it is not ok, with any password redacted. */
  error?: string;
}

/**
 * Where sessions live. The JSONL file store (FileSessionStore) is the embedded default; the
 * PostgreSQL store (@tern/store-pg) implements the same methods, so callers switch stores by
 * constructor only. Sessions returned by `create`, `open` and `fork` hold the single-writer lock
 * until `close()`; `load` returns a read-only snapshot and takes no lock.
 */
export interface SessionStore {
  create(options?: CreateSessionOptions): Promise<Session>;
  open(id: string): Promise<Session>;
  load(id: string): Promise<Session>;
  list(filter?: { cwd?: string }): Promise<SessionSummary[]>;
  delete(id: string): Promise<void>;
  fork(id: string, options?: ForkOptions): Promise<Session>;
  /** Whether the store is reachable (a file store always is). */
  health?(): Promise<StoreHealth>;
  /** Releases connections (database stores); sessions should be closed first. */
  close?(): Promise<void>;
}
