// The run's event log shares the session file. Which events are kept, and how a kept event avoids
// storing a second copy of a message that is already a message entry.
import type { Message } from "@tern/ai";
import type { PersistedEvent, SessionEntry } from "./types.js";

/** Events a resuming client does not need: streaming deltas, progress updates, the idle signal. */
const EPHEMERAL = new Set([
  "message_update",
  "tool_execution_update",
  "idle",
  "session_idle",
  "session.idle",
]);

export function isEphemeralEvent(event: { type: string }): boolean {
  return EPHEMERAL.has(event.type) || event.type.endsWith("_delta");
}

/** Marks a message stored elsewhere in the file: `{"$entry": "<message entry id>"}`. */
const REF = "$entry";

/**
 * Replaces messages that are already message entries (by identity) with a reference, so an
 * `agent_end` carrying the run's messages does not double the file. Anything else is kept as is.
 */
export function compactEvent(event: PersistedEvent, known: WeakMap<object, string>): PersistedEvent {
  return swap(event, known) as PersistedEvent;
}

function swap(value: unknown, known: WeakMap<object, string>): unknown {
  if (typeof value !== "object" || value === null) return value;
  const id = known.get(value);
  if (id !== undefined) return { [REF]: id };
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = swap(value[i], known);
      if (next !== value[i]) {
        out ??= value.slice();
        out[i] = next;
      }
    }
    return out ?? value;
  }
  let out: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const next = swap(item, known);
    if (next !== item) {
      out ??= { ...(value as Record<string, unknown>) };
      out[key] = next;
    }
  }
  return out ?? value;
}

/** Puts the referenced messages back. */
export function hydrateEvent(
  event: PersistedEvent,
  lookup: (id: string) => SessionEntry | undefined,
): PersistedEvent {
  return fill(event, lookup) as PersistedEvent;
}

function fill(value: unknown, lookup: (id: string) => SessionEntry | undefined): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => fill(item, lookup));
  const record = value as Record<string, unknown>;
  const ref = record[REF];
  if (typeof ref === "string" && Object.keys(record).length === 1) {
    const entry = lookup(ref);
    return entry?.type === "message" ? (entry.message as Message) : value;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(record)) out[key] = fill(item, lookup);
  return out;
}
