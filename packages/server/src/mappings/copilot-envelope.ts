// Copilot's event envelope: id, timestamp, parentId (the previous persisted event), ephemeral.
// A persisted event's id is derived from the session, its seq in the session's log and its place
// among the events one engine event mapped to, so the live stream and `session.getMessages` (the
// log mapped again) agree on ids. Ephemeral events get random ids.

import { createHash, randomUUID } from "node:crypto";
import type { EventEntry } from "@tern/session";
import type { JournalEntry } from "../types.js";
import { type CopilotEventBody, CopilotMapper } from "./copilot-events.js";

export interface CopilotEvent {
  id: string;
  timestamp: string;
  parentId: string | null;
  ephemeral?: true;
  type: string;
  data: Record<string, unknown>;
}

/** Maps and envelopes one stream of a session's events. */
export class CopilotStream {
  private readonly mapper: CopilotMapper;
  private parentId: string | null = null;

  constructor(private readonly sessionId: string) {
    this.mapper = new CopilotMapper(sessionId);
  }

  /** A live journal entry's events. */
  fromJournal(entry: JournalEntry): CopilotEvent[] {
    return this.wrap(this.mapper.map(entry.event), entry.seq, new Date(entry.time).toISOString());
  }

  /** A persisted log entry's events (history). */
  fromLog(entry: EventEntry): CopilotEvent[] {
    return this.wrap(this.mapper.map(entry.event as never), entry.seq, entry.timestamp);
  }

  private wrap(bodies: CopilotEventBody[], seq: number | undefined, timestamp: string): CopilotEvent[] {
    return bodies.map((body, index) => {
      const persisted = body.ephemeral !== true && seq !== undefined;
      const event: CopilotEvent = {
        id: persisted ? stableId(this.sessionId, seq, index) : randomUUID(),
        timestamp,
        parentId: this.parentId,
        ...(body.ephemeral ? { ephemeral: true as const } : {}),
        type: body.type,
        data: body.data,
      };
      if (!body.ephemeral) this.parentId = event.id;
      return event;
    });
  }
}

/** Every persisted Copilot event of a session's log, in order. */
export function copilotHistory(sessionId: string, log: readonly EventEntry[]): CopilotEvent[] {
  const stream = new CopilotStream(sessionId);
  return log.flatMap((entry) => stream.fromLog(entry)).filter((event) => !event.ephemeral);
}

function stableId(sessionId: string, seq: number, index: number): string {
  const hex = createHash("sha256").update(`${sessionId}:${seq}:${index}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
