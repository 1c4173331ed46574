// What `tern usage` adds up: every `model_call_end` event of every session (auxiliary calls too),
// grouped by model, day, session or purpose. The calls come folded into buckets (day, provider,
// model, purpose; @tern/session's usage-fold.ts), as the session index keeps them, so a report
// needs no session file (a session read whole is folded with `usageFoldOf` first).
// Cost is the event's own (priced when the call was made), but only for calls whose model has a
// known price: a model outside the catalog and config.json is priced at 0 by the runtime, and
// reporting that as $0 would be a lie.
import type { UsageBucket, UsageCounts, UsageFold } from "@tern/session";

export const USAGE_GROUPINGS = ["model", "day", "session", "purpose"] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

export interface UsageRow extends UsageCounts {
  /** provider/model, YYYY-MM-DD (UTC), the session id, or the call's purpose. */
  key: string;
  /** The session's title, for rows of `--by session`. */
  title?: string;
  /** Calls whose model has no known price: their cost is unknown, not 0 (`cost` is over the others). */
  unpricedCalls: number;
}

export interface UsageReport {
  by: UsageGrouping;
  rows: UsageRow[];
  total: UsageRow;
}

/** One session's folded calls, with what the `session` grouping shows. */
export interface SessionUsageFold {
  id: string;
  title: string;
  usage: UsageFold;
}

interface ReportOptions {
  by: UsageGrouping;
  /** Whether a provider's model has a price tern knows (catalog or config.json). */
  hasPrice: (provider: string, model: string) => boolean;
}

/** The report over folded calls (the session index's, or `usageFoldOf`'s). */
export function usageReport(sessions: readonly SessionUsageFold[], options: ReportOptions): UsageReport {
  const rows = new Map<string, UsageRow>();
  const total = emptyRow("total");
  for (const session of sessions) {
    for (const bucket of session.usage.buckets) {
      const key = keyOf(options.by, bucket, session);
      let row = rows.get(key);
      if (!row) {
        row = emptyRow(key);
        if (options.by === "session") row.title = session.title;
        rows.set(key, row);
      }
      const priced = options.hasPrice(bucket.provider, bucket.model);
      addBucket(row, bucket, priced);
      addBucket(total, bucket, priced);
    }
  }
  return { by: options.by, rows: sortRows(options.by, [...rows.values()]), total };
}

function keyOf(by: UsageGrouping, bucket: UsageBucket, session: SessionUsageFold): string {
  switch (by) {
    case "model":
      return `${bucket.provider}/${bucket.model}`;
    case "day":
      return bucket.day;
    case "session":
      return session.id;
    case "purpose":
      return bucket.purpose;
  }
}

function emptyRow(key: string): UsageRow {
  return { key, calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, unpricedCalls: 0 };
}

/** A call is priced when its model has a known price, or else when it carries a cost of its own. */
function addBucket(row: UsageRow, bucket: UsageBucket, modelPriced: boolean): void {
  row.calls += bucket.calls;
  row.input += bucket.input;
  row.output += bucket.output;
  row.cacheRead += bucket.cacheRead;
  row.cacheWrite += bucket.cacheWrite;
  row.cost += modelPriced ? bucket.cost : bucket.costedCost;
  if (!modelPriced) row.unpricedCalls += bucket.calls - bucket.costedCalls;
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
