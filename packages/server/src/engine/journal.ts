// A session's event journal: every ServerEvent gets an id (monotonic in this process, or given by
// the caller: a cluster node uses the log's seqs, the same on every node) and goes to live
// listeners at once. The journal keeps the current run and the last finished ones, so a
// client that lost its connection can be given what it missed. The loop's own streaming deltas
// (message_update, tool_execution_update) are passed on live but not kept: no protocol replays them.

import type { JournalEntry, ServerEvent } from "../types.js";

export type JournalListener = (entry: JournalEntry) => void;

const LIVE_ONLY = new Set(["message_update", "tool_execution_update"]);

export class Journal {
  private entries: JournalEntry[] = [];
  /** Ids of the agent_start entries still kept, oldest first. */
  private runStarts: number[] = [];
  private nextId = 1;
  private readonly listeners = new Set<JournalListener>();

  constructor(
    private readonly keepRuns = 1,
    private readonly now: () => number = Date.now,
  ) {}

  /** The id of the newest event (0 before the first). */
  get lastId(): number {
    return this.nextId - 1;
  }

  /**
   * Adds an event. `id` (never below the last one) numbers it instead of the journal's counter;
   * an event without a seq of its own then shares the id of the one before it.
   */
  append(event: ServerEvent, seq?: number, id?: number): JournalEntry {
    const next = id === undefined ? this.nextId : Math.max(id, this.lastId);
    this.nextId = next + 1;
    const entry: JournalEntry = { id: next, event, time: this.now() };
    if (seq !== undefined) entry.seq = seq;
    if (!LIVE_ONLY.has(event.type)) {
      if (event.type === "agent_start") this.startRun(entry.id);
      this.entries.push(entry);
    }
    for (const listener of this.listeners) listener(entry);
    return entry;
  }

  subscribe(listener: JournalListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Kept entries from the start of the run that holds `id` (the newest run for undefined). */
  fromRunOf(id?: number): JournalEntry[] {
    let start = this.runStarts.at(-1);
    if (id !== undefined) {
      start = undefined;
      for (const runStart of this.runStarts) if (runStart <= id) start = runStart;
      // Older than everything kept: give what there is.
      if (start === undefined) start = this.runStarts[0];
    }
    if (start === undefined) return [];
    const index = this.entries.findIndex((entry) => entry.id >= start!);
    return index < 0 ? [] : this.entries.slice(index);
  }

  private startRun(id: number): void {
    this.runStarts.push(id);
    if (this.runStarts.length <= this.keepRuns + 1) return;
    this.runStarts.splice(0, this.runStarts.length - this.keepRuns - 1);
    const first = this.runStarts[0]!;
    const index = this.entries.findIndex((entry) => entry.id >= first);
    this.entries = index < 0 ? [] : this.entries.slice(index);
  }
}
