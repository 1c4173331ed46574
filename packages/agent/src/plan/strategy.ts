// One entry for every strategy: "loop" is the ReAct loop as it is, "plan" is runPlan, "auto"
// asks the router first (its call is visible, purpose "route") and falls back to the loop on any
// router failure. The Agent calls this when a prompt runs with a strategy other than the loop.
// A routed prompt is one run: its bracket opens before the router is asked and the chosen run
// goes on in the same environment, so the router's call is inside agent_start … agent_end, its
// usage in the run's total and its span in the run's trace (sessions, journals and displays all
// cut runs at agent_start / agent_end).

import { runAgentLoop } from "../loop.js";
import { messageText } from "../messages.js";
import { Run } from "../run.js";
import { openRun } from "../run-bracket.js";
import { runEnv } from "../run-env.js";
import { tracedRun } from "../telemetry/traced-run.js";
import type {
  AgentContext,
  AgentEventSink,
  AgentLoopConfig,
  AgentMessage,
  AgentRunResult,
} from "../types.js";
import { route } from "./router.js";
import { planRun, runPlan } from "./run-plan.js";
import type { PlanOptions, PlanRunConfig, RunStrategy } from "./types.js";

export async function runWithStrategy(
  strategy: RunStrategy,
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig & { plan?: PlanOptions },
  emit: AgentEventSink,
  signal: AbortSignal = new AbortController().signal,
): Promise<AgentRunResult> {
  if (strategy === "plan") return runPlan(prompts, planConfig(config, context, config.plan), emit, signal);
  if (strategy !== "auto") return runAgentLoop(prompts, context, config, emit, signal);
  return tracedRun(config, emit, (traced) => routeAndRun(prompts, context, config, traced, signal));
}

async function routeAndRun(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig & { plan?: PlanOptions },
  emit: AgentEventSink,
  signal: AbortSignal,
): Promise<AgentRunResult> {
  const env = runEnv(emit, signal, config);
  const opened = await openRun(env);
  let chosen: RunStrategy;
  try {
    chosen = await route(
      env,
      config.plan?.plannerModel ?? config.model,
      prompts.map(messageText).join("\n\n"),
    );
  } catch {
    chosen = "loop"; // aborted while routing: the loop ends at once as aborted
  }
  if (chosen === "plan") return planRun(prompts, planConfig(config, context, config.plan), env, opened);
  return new Run(context, config, env).run(prompts, opened);
}

/** A plan run's configuration from the loop's: every step shares the loop's parts. */
export function planConfig(
  config: AgentLoopConfig,
  context: AgentContext,
  plan: PlanOptions & Pick<PlanRunConfig, "resume"> = {},
): PlanRunConfig {
  return {
    ...plan,
    model: config.model,
    systemPrompt: context.systemPrompt,
    tools: context.tools,
    streamFn: config.streamFn,
    streamOptions: config.streamOptions,
    hooks: config.hooks,
    policies: config.policies,
    getUserMessages: config.getSteeringMessages,
    now: config.now,
    ids: config.ids,
    telemetry: config.telemetry,
  };
}
