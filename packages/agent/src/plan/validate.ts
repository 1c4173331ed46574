// A plan's semantic checks, each failure one exact sentence the planner can act on: an empty
// plan, duplicate ids, unknown dependencies, a step depending on itself, cycles. The schema
// (planner.ts) already guarantees the shape; this guarantees the plan can run.

import type { PlanStep } from "./types.js";

/** Every problem found, empty when the plan can run. */
export function planProblems(steps: readonly PlanStep[]): string[] {
  if (steps.length === 0) return ["The plan has no steps; a plan needs at least one step."];
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const step of steps) {
    if (ids.has(step.id))
      problems.push(`Step id "${step.id}" is used by more than one step; ids must be unique.`);
    ids.add(step.id);
  }
  for (const step of steps) {
    for (const dep of step.dependencies) {
      if (dep === step.id) problems.push(`Step "${step.id}" depends on itself.`);
      else if (!ids.has(dep))
        problems.push(`Step "${step.id}" depends on "${dep}", which is not a step of the plan.`);
    }
  }
  if (problems.length > 0) return problems;
  const cycle = findCycle(steps);
  if (cycle) problems.push(`The dependencies form a cycle: ${cycle.join(" -> ")}.`);
  return problems;
}

/** One cycle as a closed path of ids, or undefined (depth-first search with colours). */
function findCycle(steps: readonly PlanStep[]): string[] | undefined {
  const deps = new Map(steps.map((step) => [step.id, step.dependencies]));
  const state = new Map<string, "open" | "closed">();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === "closed") return undefined;
    if (state.get(id) === "open") return [...path.slice(path.indexOf(id)), id];
    state.set(id, "open");
    path.push(id);
    for (const dep of deps.get(id) ?? []) {
      const found = visit(dep);
      if (found) return found;
    }
    path.pop();
    state.set(id, "closed");
    return undefined;
  };
  for (const step of steps) {
    const found = visit(step.id);
    if (found) return found;
  }
  return undefined;
}
