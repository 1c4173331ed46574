// What `tern usage` adds up: every `model_call_end` event of every session (auxiliary calls too),
// grouped by model, day, session or purpose. Cost is the event's own (priced when the call was
// made), but only for calls whose model has a known price: a model outside the catalog and
// config.json is priced at 0 by the runtime, and reporting that as $0 would be a lie.
import type { Usage } from "@tern/ai";
import type { EventEntry } from "@tern/session";

export const USAGE_GROUPINGS = ["model", "day", "session", "purpose"] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

export interface UsageRow {
  /** provider/model, YYYY-MM-DD (UTC), the session id, or the call's purpose. */
  key: string;
  /** The session's title, for rows of `--by session`. */
  title?: string;
  calls: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** USD over the priced calls. */
  cost: number;
  /** Calls whose model has no known price: their cost is unknown, not 0. */
  unpricedCalls: number;
}

export interface UsageReport {
  by: UsageGrouping;
  rows: UsageRow[];
  total: UsageRow;
}

/** One session's stored events, with what the `session` grouping shows. */
export interface SessionEvents {
  id: string;
  title: string;
  events: readonly EventEntry[];
}

type ModelCallEnd = {
  type: "model_call_end";
  model: string;
  provider: string;
  purpose: string;
  usage: Usage;
};

export function usageReport(
  sessions: readonly SessionEvents[],
  options: {
    by: UsageGrouping;
    /** Only calls that ended at or after this instant (ms since the epoch). */
    since?: number;
    /** Whether a provider's model has a price tern knows (catalog or config.json). */
    hasPrice: (provider: string, model: string) => boolean;
  },
): UsageReport {
  const rows = new Map<string, UsageRow>();
  const total = emptyRow("total");
  for (const session of sessions) {
    for (const entry of session.events) {
      const event = entry.event as Partial<ModelCallEnd>;
      if (event.type !== "model_call_end" || !event.usage) continue;
      const at = Date.parse(entry.timestamp);
      if (options.since !== undefined && !(at >= options.since)) continue;
      const call = event as ModelCallEnd;
      const key = keyOf(options.by, call, entry, session);
      let row = rows.get(key);
      if (!row) {
        row = emptyRow(key);
        if (options.by === "session") row.title = session.title;
        rows.set(key, row);
      }
      const priced = options.hasPrice(call.provider, call.model) || count(call.usage.cost?.total) > 0;
      addCall(row, call.usage, priced);
      addCall(total, call.usage, priced);
    }
  }
  return { by: options.by, rows: sortRows(options.by, [...rows.values()]), total };
}

function keyOf(by: UsageGrouping, call: ModelCallEnd, entry: EventEntry, session: SessionEvents): string {
  switch (by) {
    case "model":
      return `${call.provider}/${call.model}`;
    case "day":
      return typeof entry.timestamp === "string" ? entry.timestamp.slice(0, 10) : "unknown";
    case "session":
      return session.id;
    case "purpose":
      return call.purpose;
  }
}

function emptyRow(key: string): UsageRow {
  return { key, calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, unpricedCalls: 0 };
}

function addCall(row: UsageRow, usage: Usage, priced: boolean): void {
  row.calls++;
  row.input += count(usage.input);
  row.output += count(usage.output);
  row.cacheRead += count(usage.cacheRead);
  row.cacheWrite += count(usage.cacheWrite);
  if (priced) row.cost += count(usage.cost?.total);
  else row.unpricedCalls++;
}

/** A stored count, or 0 for a field an older or hand-edited session lacks (never NaN in a total). */
function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** Days in order; everything else biggest first (tokens), then by name. */
function sortRows(by: UsageGrouping, rows: UsageRow[]): UsageRow[] {
  if (by === "day") return rows.sort((a, b) => a.key.localeCompare(b.key));
  const size = (row: UsageRow) => row.input + row.output + row.cacheRead + row.cacheWrite;
  return rows.sort((a, b) => size(b) - size(a) || a.key.localeCompare(b.key));
}

/** The cost as `--json` gives it: null when no call was priced (unknown, not 0). */
export function knownCost(row: UsageRow): number | null {
  return row.unpricedCalls === row.calls && row.calls > 0 ? null : row.cost;
}
