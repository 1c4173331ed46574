// One step of a plan: a fresh ReAct run (the loop with the plan's hooks, permission policy and
// loop policies, its own copies of the tools, its model from `model_hint`) on a prompt carrying
// the goal, the task, the suggested tool and the dependencies' results. The step has its own
// abort signal: the plan's abort, its time limit, or its turn limit end it. Its events reach the
// plan's stream only as model calls (purpose `step:<id>`), tool executions, sub-agents' start and
// end (`task` calls; with the step's id) and errors: its messages are its own transcript, not the
// conversation's. It is a nested run: what it forwards is traced and counted by the plan.

import type { Model } from "@tern/ai";
import { runNestedLoop } from "../loop.js";
import { userMessage } from "../messages.js";
import type { AgentEvent, AgentStopReason } from "../types.js";
import type { PlanEnv } from "./env.js";
import { stepPurpose } from "./events.js";
import { cap } from "./report.js";
import type { ToolCache } from "./tool-cache.js";
import { PLAN_DEFAULTS, type PlanRunConfig, type PlanStep, type StepOutcome } from "./types.js";

/** Event types a step passes on to the plan's stream (sub-agents of `task` pass the same). */
export const FORWARDED = new Set<AgentEvent["type"]>([
  "model_call_start",
  "model_call_end",
  "model_retry",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
  "compaction_start",
  "compaction_end",
  "error",
  "subagent_start",
  "subagent_end",
]);

/** A step's loop ended with an answer. */
const ANSWERED = new Set<AgentStopReason>(["stop", "length", "terminated"]);

export function stepModel(config: PlanRunConfig, step: PlanStep): Model {
  return (step.model_hint && config.roles?.[step.model_hint]) || config.model;
}

export async function runStep(
  env: PlanEnv,
  config: PlanRunConfig,
  cache: ToolCache,
  goal: string,
  round: number,
  step: PlanStep,
  dependencies: readonly StepOutcome[],
): Promise<StepOutcome> {
  const model = stepModel(config, step);
  const startedAt = env.now();
  await env.emit({
    type: "plan_step_start",
    round,
    stepId: step.id,
    task: step.task,
    model: model.id,
    timestamp: startedAt,
  });
  const timeoutMs = config.stepTimeoutMs ?? PLAN_DEFAULTS.stepTimeoutMs;
  const maxTurns = config.stepMaxTurns ?? PLAN_DEFAULTS.stepMaxTurns;
  const controller = new AbortController();
  const stop = () => controller.abort();
  env.signal.addEventListener("abort", stop, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  let turnLimit = false;
  const purpose = stepPurpose(step.id);
  try {
    const result = await runNestedLoop(
      [userMessage(stepPrompt(goal, step, dependencies, config.resultChars), env.now())],
      { systemPrompt: config.systemPrompt, messages: [], tools: cache.toolsForStep(config.tools ?? []) },
      {
        model,
        streamFn: env.streamFn,
        streamOptions: env.streamOptions,
        hooks: config.hooks,
        policies: config.policies,
        now: env.now,
        ids: env.ids,
        shouldStopAfterTurn: (turn) => {
          turnLimit = turn.toolResults.length > 0 && turn.turn >= maxTurns;
          return turnLimit;
        },
      },
      async (event) => {
        if (!FORWARDED.has(event.type)) return;
        if (
          event.type === "model_call_start" ||
          event.type === "model_call_end" ||
          event.type === "model_retry"
        ) {
          const own = event.purpose === "turn" ? purpose : `${purpose}:${event.purpose}`;
          await env.emit({ ...event, purpose: own });
        } else if (
          event.type === "tool_execution_start" ||
          event.type === "tool_execution_update" ||
          event.type === "tool_execution_end" ||
          event.type === "subagent_start" ||
          event.type === "subagent_end"
        ) {
          await env.emit({ ...event, stepId: step.id });
        } else await env.emit(event);
      },
      controller.signal,
    );
    // The step's run counted every model call it forwarded, its sub-agents' included.
    const { usage } = result;
    const end = { id: step.id, task: step.task, startedAt, durationMs: env.now() - startedAt, usage };
    let outcome: StepOutcome;
    if (env.signal.aborted)
      outcome = { ...end, status: "aborted", result: "", error: "The plan was aborted." };
    else if (timedOut)
      outcome = {
        ...end,
        status: "failed",
        result: "",
        error: `The step exceeded its time limit (${timeoutMs} ms).`,
      };
    else if (turnLimit)
      outcome = {
        ...end,
        status: "failed",
        result: result.answer,
        error: `The step exceeded its turn limit (${maxTurns} turns).`,
      };
    else if (ANSWERED.has(result.stopReason))
      outcome = { ...end, status: "done", result: result.answer || "(the step gave no text)" };
    else
      outcome = {
        ...end,
        status: "failed",
        result: result.answer,
        error: `The step ended with ${result.stopReason}${result.errorMessage ? `: ${result.errorMessage}` : ""}.`,
      };
    const { id: _, ...fields } = outcome;
    await env.emit({ type: "plan_step_end", round, stepId: step.id, ...fields });
    return outcome;
  } finally {
    clearTimeout(timer);
    env.signal.removeEventListener("abort", stop);
  }
}

function stepPrompt(
  goal: string,
  step: PlanStep,
  dependencies: readonly StepOutcome[],
  resultChars?: number,
): string {
  const parts = [
    `You are doing one step of a larger plan.\n\nThe overall goal:\n${goal}`,
    `Your task (step "${step.id}"):\n${step.task}`,
  ];
  if (step.tool_hint) parts.push(`Suggested tool: ${step.tool_hint}`);
  if (dependencies.length > 0) {
    const max = resultChars ?? PLAN_DEFAULTS.resultChars;
    const results = dependencies
      .map((dep) => `[${dep.id}] ${dep.task}\n${cap(dep.result, max)}`)
      .join("\n\n");
    parts.push(
      `Results of the steps yours depends on (already done: do not re-run the tools that produced these):\n${results}`,
    );
  }
  parts.push("Do only your task, then answer with what you found or did, concisely and completely.");
  return parts.join("\n\n");
}
