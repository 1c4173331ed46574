// A session in memory: the tree, the leaf, the event log, and (when opened for writing) the sink
// every append goes through. Appends are synchronous: when one returns, its line is in the file.
import { type Message, Redactor, type ThinkingLevel, type UserContent } from "@tern/ai";
import { buildSessionContext, type ContextOptions } from "./context.js";
import { randomHex } from "./crypto.js";
import { SessionError } from "./errors.js";
import { compactEvent, hydrateEvent } from "./event-log.js";
import { createRedactor, type LineRedactor } from "./redact.js";
import { SessionTree } from "./tree.js";
import type {
  BranchSummaryEntry,
  CompactionEntry,
  CustomEntry,
  CustomMessageEntry,
  EventEntry,
  LabelEntry,
  MessageEntry,
  ModelChangeEntry,
  PersistedEvent,
  SessionContext,
  SessionEntry,
  SessionHeader,
  SessionInfoEntry,
  SessionOptions,
  SessionWarning,
  ThinkingLevelChangeEntry,
} from "./types.js";

/** Where a writable session's lines go. The file store writes a file; a database store would insert rows. */
export interface SessionSink {
  /** Persists one serialised, already redacted line, after every line appended before it. */
  append(line: string): void;
  /** The end of a turn: everything appended so far becomes durable (per the fsync mode). */
  flush(): void | Promise<void>;
  /** Flushes and releases the single-writer lock. */
  close(): void | Promise<void>;
}

export interface SessionInit {
  header: SessionHeader;
  entries?: SessionEntry[];
  events?: EventEntry[];
  warnings?: SessionWarning[];
  /** The file, for file-backed sessions. */
  path?: string;
  /** Absent for a read-only session. */
  sink?: SessionSink;
  options?: SessionOptions;
  contextOptions?: ContextOptions;
}

export interface CompactionInput {
  summary: string;
  firstKeptEntryId: string | null;
  tokensBefore: number;
  tokensAfter?: number;
  pinnedEntryIds?: string[];
  messages?: Message[];
  details?: unknown;
}

type NewEntry<T extends SessionEntry> = Omit<T, "id" | "parentId" | "timestamp">;

export class Session {
  readonly header: SessionHeader;
  readonly path: string | undefined;
  readonly warnings: readonly SessionWarning[];
  private readonly tree: SessionTree;
  private readonly events: EventEntry[];
  private sink: SessionSink | undefined;
  private leaf: string | null;
  private readonly now: () => number;
  private readonly newId: () => string;
  /** The literal secrets (and their encodings) no line may hold; addSecrets adds to it. */
  readonly secrets: Redactor;
  private readonly redact: LineRedactor;
  /** Message objects already written as entries, so events can refer to them instead of copying. */
  private readonly written = new WeakMap<object, string>();
  private loadedRegistered = false;
  private readonly contextOptions: ContextOptions;

  constructor(init: SessionInit) {
    this.header = init.header;
    this.path = init.path;
    this.warnings = init.warnings ?? [];
    this.tree = new SessionTree(init.entries ?? []);
    this.events = init.events ?? [];
    this.sink = init.sink;
    this.leaf = this.tree.last()?.id ?? null;
    this.now = init.options?.now ?? Date.now;
    this.newId = init.options?.newId ?? (() => randomHex(4));
    this.secrets = new Redactor(init.options?.secrets ?? []);
    this.redact = createRedactor(this.secrets);
    this.contextOptions = init.contextOptions ?? {};
  }

  /**
   * Registers literal secrets learnt after the session opened (the API key a runtime resolved,
   * however it was passed): every line written from now on has them replaced.
   */
  addSecrets(secrets: readonly string[]): void {
    this.secrets.add(secrets);
  }

  get id(): string {
    return this.header.id;
  }

  /** `text` as this session would write it: known key shapes and registered secrets replaced (traces use it). */
  redactText(text: string): string {
    return this.redact(text);
  }

  get readOnly(): boolean {
    return this.sink === undefined;
  }

  /** The entry new entries attach to; null before the first entry (or after `branch(null)`). */
  get leafId(): string | null {
    return this.leaf;
  }

  /** The newest session_info name. */
  get name(): string | undefined {
    let name: string | undefined;
    for (const entry of this.tree.entries()) if (entry.type === "session_info") name = entry.name;
    return name;
  }

  // ---------------------------------------------------------------- reading

  entries(): readonly SessionEntry[] {
    return this.tree.entries();
  }

  getEntry(id: string): SessionEntry | undefined {
    return this.tree.get(id);
  }

  children(id: string | null): SessionEntry[] {
    return this.tree.children(id);
  }

  /** Root to `leafId` (default: the current leaf). */
  pathTo(leafId: string | null = this.leaf): SessionEntry[] {
    return this.tree.path(leafId);
  }

  getLabel(id: string): string | undefined {
    return this.tree.label(id);
  }

  findLabel(label: string): SessionEntry | undefined {
    return this.tree.findLabel(label);
  }

  labels(): ReadonlyMap<string, string> {
    return this.tree.allLabels();
  }

  /** What the model sees at `leafId` (default: the current leaf). */
  buildContext(leafId: string | null = this.leaf): SessionContext {
    return buildSessionContext(this.tree, leafId, this.contextOptions);
  }

  /** The sequence number of the newest event; 0 when there is none. */
  get lastEventSeq(): number {
    return this.events.at(-1)?.seq ?? 0;
  }

  /** Events with a sequence number above `seq`, in order: a client that saw up to `seq` gets each other one once. */
  eventsAfter(seq = 0): EventEntry[] {
    // seq n is at index n - 1 (the loader checks they are consecutive from 1).
    return this.events.slice(Math.max(0, seq)).map((entry) => ({
      ...entry,
      event: hydrateEvent(entry.event, (id) => this.tree.get(id)),
    }));
  }

  /** The log as stored: messages already in the tree appear as `{"$entry": id}` references. */
  storedEvents(): readonly EventEntry[] {
    return this.events;
  }

  // ---------------------------------------------------------------- branching

  /** Moves the leaf: the next entry attaches to `entryId` (null: starts a new root). */
  branch(entryId: string | null): void {
    if (entryId !== null && !this.tree.has(entryId))
      throw new SessionError("invalid", `no entry "${entryId}" in session ${this.id}`);
    this.leaf = entryId;
  }

  /** Moves the leaf to `entryId` and records what the abandoned branch did, for the model. */
  branchWithSummary(entryId: string | null, summary: string): BranchSummaryEntry {
    const fromId = this.leaf ?? "";
    this.branch(entryId);
    return this.appendEntry<BranchSummaryEntry>({ type: "branch_summary", fromId, summary });
  }

  // ---------------------------------------------------------------- appending

  appendMessage(message: Message): MessageEntry {
    const entry = this.appendEntry<MessageEntry>({ type: "message", message });
    this.written.set(message, entry.id);
    return entry;
  }

  appendModelChange(provider: string, modelId: string): ModelChangeEntry {
    return this.appendEntry<ModelChangeEntry>({ type: "model_change", provider, modelId });
  }

  appendThinkingLevelChange(thinkingLevel: ThinkingLevel): ThinkingLevelChangeEntry {
    return this.appendEntry<ThinkingLevelChangeEntry>({ type: "thinking_level_change", thinkingLevel });
  }

  appendCompaction(input: CompactionInput): CompactionEntry {
    const onPath = new Set(this.pathTo().map((entry) => entry.id));
    if (input.firstKeptEntryId !== null && !onPath.has(input.firstKeptEntryId))
      throw new SessionError(
        "invalid",
        `compaction: first kept entry "${input.firstKeptEntryId}" is not on the path`,
      );
    return this.appendEntry<CompactionEntry>({ type: "compaction", ...input });
  }

  /** Names an entry (null removes the name). Attaches at the leaf, so it never changes the context. */
  setLabel(targetId: string, label: string | null): LabelEntry {
    if (!this.tree.has(targetId)) throw new SessionError("invalid", `no entry "${targetId}" to label`);
    return this.appendEntry<LabelEntry>({ type: "label", targetId, label });
  }

  appendCustom(customType: string, data?: unknown): CustomEntry {
    return this.appendEntry<CustomEntry>(
      data === undefined ? { type: "custom", customType } : { type: "custom", customType, data },
    );
  }

  appendCustomMessage(
    customType: string,
    content: string | UserContent[],
    extra: { display?: boolean; details?: unknown } = {},
  ): CustomMessageEntry {
    return this.appendEntry<CustomMessageEntry>({ type: "custom_message", customType, content, ...extra });
  }

  setName(name: string): SessionInfoEntry {
    return this.appendEntry<SessionInfoEntry>({ type: "session_info", name });
  }

  /** Appends `entry` unchanged (id, parent and timestamp kept): how a fork copies a path. */
  copyEntry(entry: SessionEntry): SessionEntry {
    const sink = this.writable();
    if (this.tree.has(entry.id))
      throw new SessionError("invalid", `entry "${entry.id}" is already in ${this.id}`);
    if (entry.parentId !== null && !this.tree.has(entry.parentId))
      throw new SessionError(
        "invalid",
        `entry "${entry.id}": parent "${entry.parentId}" is not in ${this.id}`,
      );
    const stored = this.write(sink, entry);
    this.tree.add(stored);
    this.leaf = stored.id;
    return stored;
  }

  /** Adds a run event to the log (outside the tree: the leaf does not move). */
  appendEvent(event: PersistedEvent): EventEntry {
    const sink = this.writable();
    this.registerLoadedMessages();
    const entry: EventEntry = {
      type: "event",
      seq: this.lastEventSeq + 1,
      timestamp: this.timestamp(),
      event: compactEvent(event, this.written),
    };
    const stored = this.write(sink, entry);
    this.events.push(stored);
    return stored;
  }

  /** Makes everything appended so far durable (per the fsync mode). */
  async flush(): Promise<void> {
    await this.sink?.flush();
  }

  /** Flushes and releases the writer lock; the session stays readable. */
  async close(): Promise<void> {
    const sink = this.sink;
    this.sink = undefined;
    await sink?.close();
  }

  /**
   * Messages loaded from the file are entries too: an event of a resumed run (a context_update
   * after a compaction) refers to them instead of copying them. Done once, on the first event.
   */
  private registerLoadedMessages(): void {
    if (this.loadedRegistered) return;
    this.loadedRegistered = true;
    for (const entry of this.tree.entries()) {
      if (entry.type === "message" && !this.written.has(entry.message))
        this.written.set(entry.message, entry.id);
    }
  }

  private appendEntry<T extends SessionEntry>(fields: NewEntry<T>): T {
    const sink = this.writable();
    const entry = { id: this.uniqueId(), parentId: this.leaf, timestamp: this.timestamp(), ...fields } as T;
    const stored = this.write(sink, entry);
    this.tree.add(stored);
    this.leaf = stored.id;
    return stored;
  }

  /** Serialises, redacts and writes; returns what the file now holds (the redacted form if it differs). */
  private write<T>(sink: SessionSink, line: T): T {
    const json = JSON.stringify(line);
    const safe = this.redact(json);
    sink.append(asciiLine(safe));
    return safe === json ? line : (JSON.parse(safe) as T);
  }

  private writable(): SessionSink {
    if (!this.sink)
      throw new SessionError("read_only", `session ${this.id} is read-only (loaded, or closed)`, this.path);
    return this.sink;
  }

  private uniqueId(): string {
    for (let attempt = 0; attempt < 100; attempt++) {
      const id = this.newId();
      if (!this.tree.has(id)) return id;
    }
    throw new SessionError("invalid", `session ${this.id}: the id generator keeps returning used ids`);
  }

  private timestamp(): string {
    return new Date(this.now()).toISOString();
  }
}

const NON_ASCII = /[\u007f-\uffff]/g;

/**
 * Escapes every non-ASCII character as \uXXXX (still the same JSON value), so session files are
 * pure ASCII: immune to encoding mix-ups, and fast to load (see readSessionFile).
 */
export function asciiLine(json: string): string {
  NON_ASCII.lastIndex = 0;
  if (!NON_ASCII.test(json)) return json;
  return json.replace(NON_ASCII, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
