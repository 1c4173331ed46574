// Runs one round's DAG: every step whose dependencies are done starts, up to the concurrency
// limit, each as its own ReAct run (step.ts). A step whose dependency failed, was skipped or was
// aborted is `skipped` without running. When the plan is aborted, or a user message arrives
// (`interrupted`), no new step starts; running ones finish (or stop, on abort) and the round ends.

import { emptyUsage } from "@tern/ai";
import type { PlanEnv } from "./env.js";
import { runStep } from "./step.js";
import type { ToolCache } from "./tool-cache.js";
import { PLAN_DEFAULTS, type PlanRunConfig, type PlanStep, type StepOutcome } from "./types.js";

export interface RoundResult {
  /** In plan order; steps never started (after an abort or interrupt) are absent. */
  outcomes: StepOutcome[];
  interrupted: boolean;
}

export async function executeRound(
  env: PlanEnv,
  config: PlanRunConfig,
  cache: ToolCache,
  goal: string,
  round: number,
  steps: readonly PlanStep[],
  finished: readonly StepOutcome[],
  interrupted: () => Promise<boolean>,
): Promise<RoundResult> {
  const limit = Math.max(1, config.concurrency ?? PLAN_DEFAULTS.concurrency);
  const outcomes = new Map<string, StepOutcome>(finished.map((outcome) => [outcome.id, outcome]));
  const pending = steps.filter((step) => !outcomes.has(step.id));
  const running = new Map<string, Promise<void>>();
  let stopped = false;
  const byId = new Map(steps.map((step) => [step.id, step]));

  while (true) {
    // Cascade: anything depending on a step that ended without a result is skipped.
    for (let changed = true; changed; ) {
      changed = false;
      for (const step of [...pending]) {
        const broken = step.dependencies.find((dep) => {
          const status = outcomes.get(dep)?.status;
          return status !== undefined && status !== "done";
        });
        if (broken === undefined) continue;
        pending.splice(pending.indexOf(step), 1);
        const outcome = skipped(step, broken, outcomes.get(broken)?.status ?? "failed", env.now());
        outcomes.set(step.id, outcome);
        const { id: _, ...fields } = outcome;
        await env.emit({ type: "plan_step_end", round, stepId: step.id, ...fields });
        changed = true;
      }
    }
    if (!stopped && !env.signal.aborted) {
      for (const step of [...pending]) {
        if (running.size >= limit) break;
        if (!step.dependencies.every((dep) => outcomes.get(dep)?.status === "done")) continue;
        pending.splice(pending.indexOf(step), 1);
        const deps = step.dependencies.map((dep) => outcomes.get(dep) as StepOutcome);
        const task = runStep(env, config, cache, goal, round, step, deps).then((outcome) => {
          outcomes.set(step.id, outcome);
          running.delete(step.id);
        });
        running.set(step.id, task);
      }
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
    if (!stopped && (await interrupted())) stopped = true;
  }
  const ordered = steps.flatMap((step) => {
    const outcome = outcomes.get(step.id);
    return outcome && byId.has(step.id) ? [outcome] : [];
  });
  return { outcomes: ordered, interrupted: stopped };
}

function skipped(step: PlanStep, dependency: string, status: string, now: number): StepOutcome {
  return {
    id: step.id,
    task: step.task,
    status: "skipped",
    result: "",
    error: `Not run: step "${dependency}" it depends on ${status === "skipped" ? "was skipped" : status === "aborted" ? "was aborted" : "failed"}.`,
    startedAt: now,
    durationMs: 0,
    usage: emptyUsage(),
  };
}
