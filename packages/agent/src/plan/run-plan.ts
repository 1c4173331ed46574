// A plan run from start to end: plan (planner.ts), execute the DAG (executor.ts), analyse
// (analyzer.ts), replan while the goal is not met with low confidence or when the user spoke
// during the round, then synthesise the answer (synthesis.ts). It speaks the loop's language:
// agent_start ... agent_end with an AgentRunResult, the prompt and the answer as messages (the
// conversation's transcript), plan_* events for the rest. Never rejects: failures and aborts end
// the run with a stop reason, like the loop. A goal larger than the planner's context window is
// refused before the planner is asked, by the loop's own context-window check among the policies.

import type { AssistantMessage, Model } from "@tern/ai";
import { isContextWindowCheck } from "../context/window-check.js";
import { assistantMessage, messageText } from "../messages.js";
import { type OpenRun, openRun } from "../run-bracket.js";
import { runEnv } from "../run-env.js";
import { tracedRun } from "../telemetry/traced-run.js";
import { describeThrown } from "../tool-result.js";
import type { AgentEventSink, AgentMessage, AgentRunResult, AgentStopReason } from "../types.js";
import { analyze, PlanAborted } from "./analyzer.js";
import type { PlanEnv } from "./env.js";
import { executeRound } from "./executor.js";
import { makePlan } from "./planner.js";
import { assembleAnswer, synthesize } from "./synthesis.js";
import { ToolCache } from "./tool-cache.js";
import {
  PLAN_DEFAULTS,
  type PlanAnalysis,
  type PlanRound,
  type PlanRunConfig,
  type PlanStep,
  type StepOutcome,
} from "./types.js";

/**
 * Runs `prompts` (or `config.resume`) as a plan. Events go to `emit`, awaited like the loop's.
 * The result's `messages` are the prompts and the answer; step transcripts stay inside the steps.
 */
export function runPlan(
  prompts: AgentMessage[],
  config: PlanRunConfig,
  emit: AgentEventSink,
  signal: AbortSignal = new AbortController().signal,
): Promise<AgentRunResult> {
  return tracedRun(config, emit, (traced) => planRun(prompts, config, runEnv(traced, signal, config)));
}

/** A plan in a run environment made by the caller, inside `opened` when the run is already open (routed). */
export async function planRun(
  prompts: AgentMessage[],
  config: PlanRunConfig,
  env: PlanEnv,
  opened?: OpenRun,
): Promise<AgentRunResult> {
  const { signal } = env;
  const bracket = opened ?? (await openRun(env));
  const messages: AgentMessage[] = [];
  for (const message of prompts) {
    await env.emit({ type: "message_start", message });
    await env.emit({ type: "message_end", message });
    messages.push(message);
  }
  const end = (stopReason: AgentStopReason, answer = "", errorMessage?: string, errorKind?: string) =>
    bracket.close({ messages, answer, iterations: stepsRun, stopReason, errorMessage, errorKind });
  let stepsRun = 0;
  try {
    const goal = config.resume?.goal ?? prompts.map(messageText).join("\n\n");
    const plannerModel = config.plannerModel ?? config.model;
    // The loop's context-window check, for the planner's request: nothing is sent for a goal
    // the planner's window cannot hold.
    const refusal = config.policies?.find(isContextWindowCheck)?.refuse(goal, plannerModel);
    if (refusal) return await end("error", "", refusal.errorMessage, refusal.errorKind);
    const maxRounds = config.maxRounds ?? PLAN_DEFAULTS.maxRounds;
    const replanBelow = config.replanBelow ?? PLAN_DEFAULTS.replanBelow;
    const rounds: PlanRound[] = [...(config.resume?.rounds ?? [])];
    const cache = new ToolCache(config.cacheableTools);
    let resumed = config.resume?.current;
    let round = resumed?.round ?? (rounds.at(-1)?.round ?? 0) + 1;
    const userMessages: string[] = [];
    const interrupted = async () => {
      const arrived = (await config.getUserMessages?.()) ?? [];
      userMessages.push(...arrived.map(messageText).filter(Boolean));
      return userMessages.length > 0;
    };

    const all = () => rounds.flatMap((r) => r.outcomes);
    // An unreadable verdict is no reason to redo the work: when steps finished, answer from them.
    const assembles = (analysis: PlanAnalysis) =>
      analysis.unreadable === true && all().some((outcome) => outcome.status === "done");
    const finishes = (analysis: PlanAnalysis, at: number) =>
      assembles(analysis) || analysis.achieved || analysis.confidence >= replanBelow || at >= maxRounds;
    const answerWith = async (analysis: PlanAnalysis) => {
      const { answer, message } = assembles(analysis)
        ? { answer: await assembleAnswer(env, all()), message: undefined }
        : await synthesize(env, plannerModel, goalWith(goal, rounds), all(), analysis);
      if (signal.aborted) return await end("aborted", "", "The plan was aborted.");
      const reply = answerMessage(message, answer, plannerModel, env.now());
      await env.emit({ type: "message_start", message: reply });
      await env.emit({ type: "message_end", message: reply });
      messages.push(reply);
      return await end("stop", answer);
    };
    // Resumed after the last round's analysis settled it (a crash during the answer): answer now.
    const settled = config.resume && !resumed ? rounds.at(-1) : undefined;
    if (settled?.analysis && settled.userMessage === undefined && finishes(settled.analysis, settled.round)) {
      return await answerWith(settled.analysis);
    }

    while (true) {
      let steps: PlanStep[];
      let finished: StepOutcome[] = [];
      if (resumed) {
        steps = resumed.steps;
        finished = resumed.done;
        resumed = undefined;
      } else {
        await env.emit({ type: "phase", phase: "planning", detail: { round } });
        const planned = await makePlan(env, plannerModel, goalWith(goal, rounds), config.tools ?? [], rounds);
        if (signal.aborted) return await end("aborted", "", "The plan was aborted.");
        if (!planned.ok) return await end("error", "", planned.error);
        steps = planned.steps;
      }
      await env.emit({ type: "plan_start", round, goal, steps, timestamp: env.now() });
      const { outcomes, interrupted: spoke } = await executeRound(
        env,
        config,
        cache,
        goalWith(goal, rounds),
        round,
        steps,
        finished,
        interrupted,
      );
      stepsRun += outcomes.filter((o) => o.status !== "skipped").length - finished.length;
      if (signal.aborted) return await end("aborted", "", "The plan was aborted.");
      if (spoke) {
        rounds.push({ round, steps, outcomes, userMessage: userMessages.splice(0).join("\n") });
        await env.emit({
          type: "plan_replan",
          round: ++round,
          reason: "user_message",
          message: rounds.at(-1)?.userMessage,
        });
        continue;
      }
      const analysis = await analyze(env, plannerModel, goalWith(goal, rounds), outcomes);
      await env.emit({ type: "plan_analysis", round, ...analysis });
      rounds.push({ round, steps, outcomes, analysis });
      if (await interrupted()) {
        const said = userMessages.splice(0).join("\n");
        (rounds.at(-1) as PlanRound).userMessage = said;
        await env.emit({ type: "plan_replan", round: ++round, reason: "user_message", message: said });
        continue;
      }
      if (finishes(analysis, round)) return await answerWith(analysis);
      await env.emit({ type: "plan_replan", round: ++round, reason: "low_confidence" });
    }
  } catch (error) {
    if (error instanceof PlanAborted || signal.aborted)
      return await end("aborted", "", "The plan was aborted.");
    return await end("error", "", `The plan failed: ${describeThrown(error)}`);
  }
}

/** The goal, with what the user said during the plan, so later rounds take it into account. */
function goalWith(goal: string, rounds: readonly PlanRound[]): string {
  const said = rounds.flatMap((round) => (round.userMessage ? [round.userMessage] : []));
  return said.length
    ? `${goal}\n\nThe user added during the work:\n${said.map((s) => `- ${s}`).join("\n")}`
    : goal;
}

/** The synthesis reply, or (when it failed) a message holding the fallback answer. */
function answerMessage(
  message: AssistantMessage | undefined,
  answer: string,
  model: Model,
  now: number,
): AssistantMessage {
  return message ?? assistantMessage(model, answer, now);
}
