// Turns the agent's canonical events into session lines: a message entry at each message_end, a
// compaction entry when the loop replaces its context, model and thinking-level changes, the
// persisted event log, and a flush at each turn's end. Works as an Agent listener or as the sink
// of runAgentLoop / a for-await over agentLoop.
import { type AgentEvent, type AgentMessage, contextUpdateData } from "@tern/agent";
import { estimateMessageTokens, type Message, type ThinkingLevel } from "@tern/ai";
import { isEphemeralEvent } from "./event-log.js";
import type { Session } from "./session.js";
import type { MessageEntry, PersistedEvent } from "./types.js";

export interface RecorderOptions {
  /** Keep the run's events in the session's event log. Default true. */
  events?: boolean;
  /** The run's model and thinking level; recorded at each agent_start when they differ from the session's. */
  settings?: () => { model?: { provider: string; id: string }; thinkingLevel?: ThinkingLevel };
  /** Sees each message entry once it is written (e.g. to acknowledge it to a client). */
  onMessageEntry?: (entry: MessageEntry) => void;
  /** Called once, with the first write failure; persistence stops there. */
  onError?: (error: Error) => void;
}

type CompactionEnd = Extract<AgentEvent, { type: "compaction_end" }>;
type ContextUpdate = Extract<AgentEvent, { type: "context_update" }>;

export class SessionRecorder {
  private failure: Error | undefined;
  /** message_start waits for its message_end, so the message is written once and the event refers to it. */
  private pendingStart: AgentEvent | undefined;
  private lastCompaction: CompactionEnd | undefined;

  constructor(
    readonly session: Session,
    private readonly options: RecorderOptions = {},
  ) {}

  /** The first write failure, if any. */
  get error(): Error | undefined {
    return this.failure;
  }

  /** The event sink. Never throws: a failure is kept in `error` and reported to `onError`. */
  readonly handle = (event: AgentEvent): void | Promise<void> => {
    if (this.failure) return;
    try {
      const flush = this.record(event);
      if (flush) return this.session.flush().catch((error: unknown) => this.fail(error));
    } catch (error) {
      this.fail(error);
    }
  };

  /** Returns true when the session should be flushed (a turn or the run ended). */
  private record(event: AgentEvent): boolean {
    if (event.type === "message_start") {
      this.pendingStart = event;
      return false;
    }
    if (event.type === "message_end") {
      const entry = this.session.appendMessage(event.message as Message);
      this.options.onMessageEntry?.(entry);
      // A replayed message_start carries the finished message (by reference, no second copy).
      if (this.pendingStart) this.log({ type: "message_start", message: event.message });
      this.pendingStart = undefined;
      this.log(event);
      return false;
    }
    if (isEphemeralEvent(event)) return false;
    this.releaseStart();
    switch (event.type) {
      case "agent_start":
        this.recordSettings();
        break;
      case "compaction_end":
        this.lastCompaction = event;
        break;
      case "context_update":
        this.recordContextUpdate(event);
        this.log(contextUpdateData(event) as PersistedEvent);
        return false;
    }
    this.log(event);
    if (event.type === "turn_end") this.lastCompaction = undefined;
    return event.type === "turn_end" || event.type === "agent_end";
  }

  private releaseStart(): void {
    const start = this.pendingStart;
    this.pendingStart = undefined;
    if (start) this.log(start);
  }

  private log(event: AgentEvent | PersistedEvent): void {
    if (this.options.events === false) return;
    this.session.appendEvent(event as PersistedEvent);
  }

  private recordSettings(): void {
    const settings = this.options.settings?.();
    if (!settings) return;
    const context = this.session.buildContext();
    const model = settings.model;
    if (model && (context.model?.provider !== model.provider || context.model.modelId !== model.id))
      this.session.appendModelChange(model.provider, model.id);
    if (settings.thinkingLevel && settings.thinkingLevel !== context.thinkingLevel)
      this.session.appendThinkingLevelChange(settings.thinkingLevel);
  }

  private recordContextUpdate(event: ContextUpdate): void {
    if (event.messages) recordReplacement(this.session, event.messages, this.lastCompaction);
    if (event.model) this.session.appendModelChange(event.model.provider, event.model.id);
    if (event.thinkingLevel) this.session.appendThinkingLevelChange(event.thinkingLevel);
  }

  private fail(error: unknown): void {
    if (this.failure) return;
    this.failure = error instanceof Error ? error : new Error(String(error));
    this.options.onError?.(this.failure);
  }
}

/**
 * The loop replaced its context (a compaction). Records a compaction entry that rebuilds exactly
 * `next`: the longest tail `next` shares with the session's context is kept by reference
 * (firstKeptEntryId), earlier messages it still holds become pinned entries, and whatever is new
 * (the summary) is stored verbatim.
 */
export function recordReplacement(
  session: Session,
  next: readonly AgentMessage[],
  info?: { tokensBefore: number; tokensAfter?: number; reason?: string },
): void {
  const current = session.buildContext();
  const messages = current.messages;
  const ids = current.entryIds;
  const isEntry = (i: number) => session.getEntry(ids[i]!)?.type !== "compaction";
  let kept = 0;
  while (kept < next.length && kept < messages.length) {
    const i = messages.length - 1 - kept;
    if (!isEntry(i) || !same(next[next.length - 1 - kept], messages[i])) break;
    kept++;
  }
  if (kept === next.length && kept === messages.length) return; // nothing changed
  const head = next.slice(0, next.length - kept);
  const tailStart = messages.length - kept;
  const pinned: string[] = [];
  let from = 0;
  let p = 0;
  for (; p < head.length; p++) {
    let found = -1;
    for (let j = from; j < tailStart && found < 0; j++) {
      if (session.getEntry(ids[j]!)?.type === "message" && same(head[p], messages[j])) found = j;
    }
    if (found < 0) break;
    pinned.push(ids[found]!);
    from = found + 1;
  }
  const replacement = head.slice(p) as Message[];
  const tokensBefore = info?.tokensBefore ?? estimate(messages);
  const details = info ? { reason: info.reason, tokensAfter: info.tokensAfter } : undefined;
  session.appendCompaction({
    summary: replacement.map(textOf).join("\n\n"),
    firstKeptEntryId: kept > 0 ? ids[tailStart]! : null,
    tokensBefore,
    ...(info?.tokensAfter !== undefined ? { tokensAfter: info.tokensAfter } : {}),
    ...(pinned.length > 0 ? { pinnedEntryIds: pinned } : {}),
    messages: replacement,
    ...(details ? { details } : {}),
  });
  // Insurance: if the layout could not be expressed, store the whole context verbatim.
  if (JSON.stringify(session.buildContext().messages) !== JSON.stringify(next)) {
    session.appendCompaction({
      summary: replacement.map(textOf).join("\n\n"),
      firstKeptEntryId: null,
      tokensBefore,
      messages: next as Message[],
    });
  }
}

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

function estimate(messages: Message[]): number {
  let total = 0;
  for (const message of messages) {
    const role = (message as { role?: unknown }).role;
    if (role === "user" || role === "assistant" || role === "toolResult")
      total += estimateMessageTokens(message);
  }
  return total;
}

function textOf(message: Message): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: string; text?: string }) => (part.type === "text" ? (part.text ?? "") : ""))
    .join("\n");
}
