// Rebuilds an interrupted plan from the events a session recorded, so a resumed run keeps the
// steps that finished. Rounds are read from plan_start / plan_step_end / plan_analysis /
// plan_replan; only the last run (after its agent_start) counts, and only when it was aborted or
// never ended (a crash).

import type { AgentEvent } from "../types.js";
import type { PlanCheckpoint, PlanRound, StepOutcome } from "./types.js";

/** The checkpoint of the last run's plan, or undefined when that run was not a plan or finished. */
export function planCheckpoint(events: readonly AgentEvent[]): PlanCheckpoint | undefined {
  const start = events.findLastIndex((event) => event.type === "agent_start");
  const run = events.slice(start + 1);
  // A plan that finished is done; one that was aborted or crashed (no agent_end) can go on.
  const ended = run.find((event) => event.type === "agent_end");
  if (ended && ended.stopReason !== "aborted") return undefined;
  let goal: string | undefined;
  const rounds = new Map<number, PlanRound>();
  for (const event of run) {
    if (event.type === "plan_start") {
      goal ??= event.goal;
      const earlier = rounds.get(event.round);
      const ids = new Set(event.steps.map((step) => step.id));
      const kept = (earlier?.outcomes ?? []).filter((o) => o.status === "done" && ids.has(o.id));
      rounds.set(event.round, { round: event.round, steps: event.steps, outcomes: kept });
    } else if (event.type === "plan_step_end") {
      const round = rounds.get(event.round);
      if (!round) continue;
      const { type: _, round: __, stepId, ...fields } = event;
      const outcome: StepOutcome = { id: stepId, ...fields };
      round.outcomes = [...round.outcomes.filter((o) => o.id !== stepId), outcome];
    } else if (event.type === "plan_analysis") {
      const round = rounds.get(event.round);
      if (round) {
        const { type: _, round: __, ...analysis } = event;
        round.analysis = analysis;
      }
    } else if (event.type === "plan_replan" && event.message !== undefined) {
      const round = rounds.get(event.round - 1);
      if (round) round.userMessage = event.message;
    }
  }
  if (goal === undefined) return undefined;
  const ordered = [...rounds.values()].sort((a, b) => a.round - b.round);
  const last = ordered.at(-1) as PlanRound;
  // A round that was analysed or interrupted is finished: the next round plans afresh.
  if (last.analysis || last.userMessage !== undefined) {
    return { goal, rounds: ordered, current: undefined };
  }
  return {
    goal,
    rounds: ordered.slice(0, -1),
    current: { round: last.round, steps: last.steps, done: last.outcomes.filter((o) => o.status === "done") },
  };
}
