// The tokens and cost of a session's model calls, folded from its `model_call_end` event lines into
// buckets by UTC day, provider, model and purpose. The session index keeps one fold per file, so a
// usage report over every session reads no session file: any grouping by those keys (or by
// session) adds buckets. A report that starts at an instant inside a day cannot split a bucket, so
// the fold also keeps the first and last call's instant (and whether a call had no readable one):
// a session whose calls all lie after the cut counts whole, one whose calls all lie before counts
// nothing, and only one that straddles it has to be read again.
import type { EventEntry } from "./types.js";

/** Token counts and cost of some model calls: a bucket's, or a usage report row's. */
export interface UsageCounts {
  calls: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** USD: in a bucket the sum of every call's usage.cost.total. */
  cost: number;
}

export interface UsageBucket extends UsageCounts {
  /** YYYY-MM-DD of the call's end (UTC), or "unknown" for an event without a timestamp. */
  day: string;
  provider: string;
  model: string;
  purpose: string;
  /** Calls whose own cost was above 0, and their sum: what counts when the model has no known price. */
  costedCalls: number;
  costedCost: number;
}

export interface UsageFold {
  buckets: UsageBucket[];
  /** ms since the epoch of the earliest and latest call with a readable timestamp. */
  firstCallMs?: number;
  lastCallMs?: number;
  /** A call whose timestamp does not parse: no cut can place it, so a cut reads the session. */
  undated?: boolean;
}

export function emptyUsageFold(): UsageFold {
  return { buckets: [] };
}

interface ModelCallEnd {
  type: "model_call_end";
  provider: unknown;
  model: unknown;
  purpose: unknown;
  usage: Record<string, unknown> & { cost?: { total?: unknown } };
}

/** Adds one stored event line to `fold` when it ends a model call (other lines change nothing). */
export function foldUsageLine(fold: UsageFold, line: { timestamp?: unknown; event?: unknown }): void {
  const event = line.event as Partial<ModelCallEnd> | undefined;
  if (typeof event !== "object" || event === null || event.type !== "model_call_end") return;
  if (typeof event.usage !== "object" || event.usage === null) return;
  const timestamp = typeof line.timestamp === "string" ? line.timestamp : undefined;
  const at = timestamp !== undefined ? Date.parse(timestamp) : Number.NaN;
  if (Number.isNaN(at)) fold.undated = true;
  else {
    fold.firstCallMs = Math.min(fold.firstCallMs ?? at, at);
    fold.lastCallMs = Math.max(fold.lastCallMs ?? at, at);
  }
  const key = {
    day: timestamp !== undefined ? timestamp.slice(0, 10) : "unknown",
    provider: String(event.provider),
    model: String(event.model),
    purpose: String(event.purpose),
  };
  let bucket = fold.buckets.find(
    (b) =>
      b.day === key.day && b.provider === key.provider && b.model === key.model && b.purpose === key.purpose,
  );
  if (!bucket) {
    bucket = {
      ...key,
      calls: 0,
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      cost: 0,
      costedCalls: 0,
      costedCost: 0,
    };
    fold.buckets.push(bucket);
  }
  const usage = event.usage;
  const cost = count(usage.cost?.total);
  bucket.calls++;
  bucket.input += count(usage.input);
  bucket.output += count(usage.output);
  bucket.cacheRead += count(usage.cacheRead);
  bucket.cacheWrite += count(usage.cacheWrite);
  bucket.cost += cost;
  if (cost > 0) {
    bucket.costedCalls++;
    bucket.costedCost += cost;
  }
}

/** The fold of stored events, only of calls that ended at or after `since` (ms) when it is given. */
export function usageFoldOf(events: readonly EventEntry[], since?: number): UsageFold {
  const fold = emptyUsageFold();
  for (const entry of events) {
    if (since !== undefined && !(Date.parse(entry.timestamp) >= since)) continue;
    foldUsageLine(fold, entry);
  }
  return fold;
}

/** A stored count, or 0 for a field an older or hand-edited session lacks (never NaN in a total). */
function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

const BUCKET_TEXT_KEYS = ["day", "provider", "model", "purpose"] as const;
const BUCKET_COUNT_KEYS = [
  "calls",
  "input",
  "output",
  "cacheRead",
  "cacheWrite",
  "cost",
  "costedCalls",
  "costedCost",
] as const;

const isCount = (n: unknown) => typeof n === "number" && Number.isFinite(n);

/**
 * Whether an index's stored fold has the shape `foldUsageLine` made (a hand-edited index may not).
 * Plain loops over shared key lists: listing runs this for every session in a fresh process,
 * where per-call arrays and closures were ~15 ms of 1,000.
 */
export function isUsageFold(value: unknown): value is UsageFold {
  const fold = value as UsageFold;
  if (typeof fold !== "object" || fold === null || !Array.isArray(fold.buckets)) return false;
  if (fold.firstCallMs !== undefined && !isCount(fold.firstCallMs)) return false;
  if (fold.lastCallMs !== undefined && !isCount(fold.lastCallMs)) return false;
  if (fold.undated !== undefined && typeof fold.undated !== "boolean") return false;
  for (const bucket of fold.buckets) {
    if (typeof bucket !== "object" || bucket === null) return false;
    for (const key of BUCKET_TEXT_KEYS) if (typeof bucket[key] !== "string") return false;
    for (const key of BUCKET_COUNT_KEYS) if (!isCount(bucket[key])) return false;
  }
  return true;
}
