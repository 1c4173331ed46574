// What a rewind did, in lines for the terminal (`tern sessions rewind` and `/rewind` in chat).

import path from "node:path";
import type { RewindFile } from "@tern/tools";
import type { RewindOutcome } from "../sessions/rewind.js";
import { oneLine } from "./format.js";
import type { Style } from "./style.js";

export function rewindLines(outcome: RewindOutcome, cwd: string, style: Style): string[] {
  const rel = (abs: string) => path.relative(cwd, abs) || abs;
  const lines: string[] = [];
  const turn = `turn ${outcome.turn.number} (${JSON.stringify(oneLine(outcome.turn.text, 50))})`;
  const { plan } = outcome;
  if (outcome.refused && plan) {
    lines.push(
      style.red(
        `✗ refused: changed outside tern since tern last touched ${plan.conflicts.length === 1 ? "it" : "them"}: ${plan.conflicts.map((f) => rel(f.path)).join(", ")}`,
      ),
      style.dim("  nothing was changed; --force (or /rewind N force) overwrites them"),
    );
    return lines;
  }
  if (plan) {
    const written = new Set(outcome.restored);
    // Each list is in path order (planRewind); forced, the two are merged.
    const done = [...plan.restore, ...plan.conflicts].filter((f) => written.has(f.path)).sort(byPath);
    lines.push(
      done.length === 0
        ? `code: nothing to restore since before ${turn}`
        : `code: restored ${done.length} file${done.length === 1 ? "" : "s"} to before ${turn}: ${done.map((f) => describe(f, rel)).join(", ")}`,
    );
    for (const file of outcome.failed)
      lines.push(style.red(`  ✗ could not restore ${rel(file.path)}: ${file.error}`));
    for (const file of plan.unrestorable)
      lines.push(style.yellow(`  not restored: ${rel(file.path)}: ${file.why}`));
    for (const note of new Set(plan.untracked)) lines.push(style.yellow(`  not tracked: ${note}`));
    if (plan.skippedRecords > 0)
      lines.push(style.yellow(`  ${plan.skippedRecords} unreadable checkpoint record(s) were skipped`));
  }
  if (outcome.conversation)
    lines.push(`conversation: back to before ${turn}; the later turns stay in the session as a branch`);
  return lines;
}

function describe(file: RewindFile, rel: (abs: string) => string): string {
  if (file.target.kind === "absent") return `${rel(file.path)} (deleted: it was created since)`;
  if (file.current.kind === "absent") return `${rel(file.path)} (recreated)`;
  return rel(file.path);
}

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
