// A process tree's memory, sampled from /proc: the resident set of the root and every descendant
// (found through /proc/<pid>/task/<tid>/children) summed at each sample; the largest sum is the
// tree's peak. Processes that live shorter than the sampling interval are missed, so the figure
// is a lower bound; CPU comes from the root's rusage instead (see run-cli.ts).

import { readdirSync, readFileSync } from "node:fs";

const PAGE = 4096;

function children(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ").filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** Every live pid in the tree under `root`, root included. */
function treePids(root: number): number[] {
  const seen: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (seen.includes(pid)) continue;
    seen.push(pid);
    queue.push(...children(pid));
  }
  return seen;
}

/** Summed resident set of the tree now, in bytes (processes gone meanwhile count 0). */
export function treeRssBytes(root: number): number {
  let total = 0;
  for (const pid of treePids(root)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * PAGE;
    } catch {
      // exited between listing and reading
    }
  }
  return total;
}
