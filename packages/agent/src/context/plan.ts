// Where a compaction cuts, and what goes where: pinned units stay verbatim, the newest units up to
// a token amount stay verbatim, everything else is summarised. Cuts fall between units only, so a
// tool call and its results are never split. A previous compaction summary is never summarised
// again: its text goes to the summariser as the card to update.
import type { AgentMessage } from "../types.js";
import { isCompactionSummary } from "./summary-message.js";
import { splitUnits, type Unit } from "./units.js";

export interface CompactionPlan {
  /** Index of the first message of the verbatim tail (messages.length when nothing is kept). */
  cut: number;
  /** Pinned messages before the cut, in order: kept verbatim ahead of the summary. */
  pinned: AgentMessage[];
  /** Their indices in the input. */
  pinnedIndices: number[];
  /** Indices of the messages to summarise (before the cut, not pinned, not a previous summary). */
  older: number[];
  /** Previous summary messages (their text is the card to update). */
  previous: AgentMessage[];
  /** Units whose pins were dropped because pinned messages alone took too much. */
  unpinned: number;
  /** Tokens of the units that stay pinned (anywhere in the transcript). */
  pinnedTokens: number;
}

export interface PlanOptions {
  /** Tokens the unpinned tail may take. The newest unit is always kept, whatever its size. */
  recentTokens: number;
  /** Pinned units above this many tokens lose their pins, all but the newest. */
  pinnedLimit: number;
}

/** Which units keep their pins: all of them, unless together they pass the limit; then the newest only. */
export function pinnedUnits(units: Unit[], isSummary: (unit: Unit) => boolean, limit: number) {
  const pinned = units.filter((unit) => unit.pinned && !isSummary(unit));
  const tokens = pinned.reduce((sum, unit) => sum + unit.tokens, 0);
  if (tokens <= limit || pinned.length <= 1) return { kept: new Set(pinned), unpinned: 0, tokens };
  const newest = pinned[pinned.length - 1]!;
  return { kept: new Set([newest]), unpinned: pinned.length - 1, tokens: newest.tokens };
}

export function planCompaction(messages: readonly AgentMessage[], options: PlanOptions): CompactionPlan {
  const units = splitUnits(messages);
  const isSummary = (unit: Unit) => unit.end - unit.start === 1 && isCompactionSummary(messages[unit.start]!);
  const pins = pinnedUnits(units, isSummary, options.pinnedLimit);

  // The verbatim tail: newest units while they fit, never reaching back over a previous summary.
  let first = units.length;
  let used = 0;
  for (let u = units.length - 1; u >= 0; u--) {
    const unit = units[u]!;
    if (isSummary(unit)) break;
    const cost = pins.kept.has(unit) ? 0 : unit.tokens; // pinned units are paid for separately
    if (first < units.length && used + cost > options.recentTokens) break;
    used += cost;
    first = u;
  }

  const plan: CompactionPlan = {
    cut: first < units.length ? units[first]!.start : messages.length,
    pinned: [],
    pinnedIndices: [],
    older: [],
    previous: [],
    unpinned: pins.unpinned,
    pinnedTokens: pins.tokens,
  };
  for (let u = 0; u < first; u++) {
    const unit = units[u]!;
    if (isSummary(unit)) {
      plan.previous.push(messages[unit.start]!);
      continue;
    }
    const target = pins.kept.has(unit) ? plan.pinnedIndices : plan.older;
    for (let i = unit.start; i < unit.end; i++) target.push(i);
  }
  plan.pinned = plan.pinnedIndices.map((i) => messages[i]!);
  return plan;
}
