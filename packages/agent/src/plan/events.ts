// Plan mode's event family: a round's plan, each step's start and end, the analysis of a round
// and the decision to plan again. Emitted by the plan run (`run-plan.ts`, `step.ts`,
// `executor.ts`); the step table, the FIM and Copilot mappers, ACP's plan and the tracer read it.
// A step's own tool events carry its id (`stepId`) and its model calls name it in their purpose.

import { familyGuard } from "../events.js";
import type { PlanAnalysis, PlanStep, StepOutcome } from "./types.js";

export type PlanReplanReason = "low_confidence" | "user_message";

export type PlanEvent =
  /** A round's validated plan, before its steps run. */
  | { type: "plan_start"; round: number; goal: string; steps: PlanStep[]; timestamp: number }
  | { type: "plan_step_start"; round: number; stepId: string; task: string; model: string; timestamp: number }
  /** A step's end: `status` done, failed, skipped (a dependency failed) or aborted; usage is the step's own. */
  | ({ type: "plan_step_end"; round: number; stepId: string } & Omit<StepOutcome, "id">)
  | ({ type: "plan_analysis"; round: number } & PlanAnalysis)
  /** Another round starts: the analysis fell short, or the user sent a message during the plan. */
  | { type: "plan_replan"; round: number; reason: PlanReplanReason; message?: string };

declare module "../events.js" {
  interface AgentEventFamilies {
    plan: PlanEvent;
  }
}

export const isPlanEvent: (event: { type: string }) => event is PlanEvent = familyGuard<PlanEvent>({
  plan_start: true,
  plan_step_start: true,
  plan_step_end: true,
  plan_analysis: true,
  plan_replan: true,
});

/** The purpose of a step's model calls (`step:<id>`, then `:<job>` for its auxiliary calls). */
export function stepPurpose(stepId: string): string {
  return `step:${stepId}`;
}
