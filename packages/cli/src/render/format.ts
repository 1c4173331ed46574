// Small formatters shared by the progress lines, `sessions` and `models`.
import { terminalText } from "./terminal-text.js";

export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 100_000) return `${(count / 1000).toFixed(1)}k`;
  if (count < 1_000_000) return `${Math.round(count / 1000)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

/** A known price in USD: "$0.00" only for calls whose price is known to be zero. */
export function formatCost(usd: number): string {
  if (usd === 0) return "$0.00";
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/** What some model calls cost, as far as tern knows their prices. */
export interface CostTally {
  /** USD over the priced calls. */
  cost: number;
  calls: number;
  /** Calls whose model has no known price: their cost is unknown, not 0. */
  unpricedCalls: number;
}

/**
 * The one way `run`, `chat` and `usage` show a cost: "$0.12"; "unknown" when no call had a price
 * (a model outside the catalog and config.json, e.g. a local or scripted server); "$0.12 + unknown"
 * when only some had one.
 */
export function formatTally(tally: CostTally): string {
  if (tally.calls > 0 && tally.unpricedCalls === tally.calls) return "unknown";
  return tally.unpricedCalls > 0 ? `${formatCost(tally.cost)} + unknown` : formatCost(tally.cost);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

/** One line, at most `max` characters, with an ellipsis when cut; safe to print on a terminal. */
export function oneLine(text: string, max = 100): string {
  const flat = terminalText(text.replace(/\s+/g, " ")).trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

export function firstLine(text: string): string {
  return text.split("\n", 1)[0] ?? "";
}

/** "2 minutes ago", "3 days ago" — for session lists. */
export function ago(iso: string, now = Date.now()): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return "?";
  const seconds = Math.max(0, Math.round((now - time) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)}h ago`;
  return `${Math.round(seconds / 86_400)}d ago`;
}

export function padEnd(text: string, width: number): string {
  return text.length >= width ? text : text + " ".repeat(width - text.length);
}
