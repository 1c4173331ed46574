// One entry for every strategy: "loop" is the ReAct loop as it is, "plan" is runPlan, "auto"
// asks the router first (its call is visible, purpose "route") and falls back to the loop on any
// router failure. The Agent calls this when a prompt runs with a strategy other than the loop.
// The router's events are held until the chosen run's agent_start and its usage is added to that
// run's agent_end, so every event of the prompt stays inside one run (sessions, journals and
// displays all cut runs at agent_start / agent_end).

import { addUsage } from "@tern/ai";
import { runAgentLoop } from "../loop.js";
import { messageText } from "../messages.js";
import { tracedRun } from "../telemetry/traced-run.js";
import type {
  AgentContext,
  AgentEvent,
  AgentEventSink,
  AgentLoopConfig,
  AgentMessage,
  AgentRunResult,
} from "../types.js";
import { planEnv } from "./env.js";
import { route } from "./router.js";
import { runPlan } from "./run-plan.js";
import type { PlanOptions, PlanRunConfig, RunStrategy } from "./types.js";

export async function runWithStrategy(
  strategy: RunStrategy,
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig & { plan?: PlanOptions },
  emit: AgentEventSink,
  signal: AbortSignal = new AbortController().signal,
): Promise<AgentRunResult> {
  if (strategy !== "auto") return runChosen(strategy, prompts, context, config, emit, signal);
  // Traced here, not in the chosen run, so the router's call is inside the run's span.
  return tracedRun(config, emit, (traced) =>
    routeAndRun(prompts, context, { ...config, telemetry: false }, traced, signal),
  );
}

async function routeAndRun(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig & { plan?: PlanOptions },
  emit: AgentEventSink,
  signal: AbortSignal,
): Promise<AgentRunResult> {
  const held: AgentEvent[] = [];
  const env = planEnv((event) => void held.push(event), signal, config);
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
  const withRoute: AgentEventSink = async (event) => {
    if (event.type === "agent_end") return emit({ ...event, usage: addUsage(event.usage, env.usage) });
    await emit(event);
    if (event.type === "agent_start") for (const early of held.splice(0)) await emit(early);
  };
  const result = await runChosen(chosen, prompts, context, config, withRoute, signal);
  return { ...result, usage: addUsage(result.usage, env.usage) };
}

function runChosen(
  strategy: RunStrategy,
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig & { plan?: PlanOptions },
  emit: AgentEventSink,
  signal: AbortSignal,
): Promise<AgentRunResult> {
  if (strategy !== "plan") return runAgentLoop(prompts, context, config, emit, signal);
  return runPlan(prompts, planConfig(config, context, config.plan), emit, signal);
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
