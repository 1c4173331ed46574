// The synthesis phase: the plan's answer, streamed as answer_start/delta/end from one model call
// (purpose "synthesis") over the goal, the steps' results and the analysis. When the goal was not
// achieved the answer says so and gives what the completed steps found. A failed call falls back
// to the analyzer's final answer, else to the steps' results as they are. When the analysis itself
// was unreadable no synthesis is asked for: the answer is the steps' results, saying so.

import type { AssistantMessage, Model } from "@tern/ai";
import { assistantText, userMessage } from "../messages.js";
import { callModel } from "../model-call.js";
import type { PlanEnv } from "./env.js";
import { outcomesReport } from "./report.js";
import type { PlanAnalysis, StepOutcome } from "./types.js";

const SYSTEM =
  "You write the final answer to the user's goal from the results of the steps that worked on it. Answer the goal directly; do not describe the plan.";

export interface Synthesis {
  answer: string;
  /** The synthesis call's reply (undefined when it failed and a fallback was used). */
  message: AssistantMessage | undefined;
}

export async function synthesize(
  env: PlanEnv,
  model: Model,
  goal: string,
  outcomes: readonly StepOutcome[],
  analysis: PlanAnalysis | undefined,
): Promise<Synthesis> {
  const achieved = analysis?.achieved ?? false;
  const prompt = [
    `Goal:\n${goal}`,
    `Results of the steps:\n${outcomesReport(outcomes)}`,
    analysis ? `Analysis: ${analysis.reasoning}` : "",
    achieved
      ? "Write the answer."
      : "The goal was NOT fully achieved. Say so plainly first, then give what the completed steps found.",
  ]
    .filter(Boolean)
    .join("\n\n");
  await env.emit({ type: "answer_start" });
  let streamed = false;
  const message = await callModel({
    model,
    context: { systemPrompt: SYSTEM, messages: [userMessage(prompt, env.now())] },
    streamOptions: { ...env.streamOptions, signal: env.signal },
    env,
    purpose: "synthesis",
    messageEvents: false,
    onEvent: async (event) => {
      if (event.type !== "text_delta") return;
      streamed = true;
      await env.emit({ type: "answer_delta", delta: event.delta });
    },
  });
  const text = assistantText(message);
  if (message.stopReason !== "error" && message.stopReason !== "aborted" && text) {
    await env.emit({ type: "answer_end", answer: text });
    return { answer: text, message };
  }
  // As in the loop's synthesis: the deltas after the last answer_start add up to answer_end's
  // answer, so what streamed before the failure is voided by a fresh start.
  const fallback = fallbackAnswer(outcomes, analysis);
  if (streamed) await env.emit({ type: "answer_start" });
  if (fallback !== "") await env.emit({ type: "answer_delta", delta: fallback });
  await env.emit({
    type: "answer_end",
    answer: fallback,
    error: message.errorMessage ?? "the synthesis was empty",
  });
  return { answer: fallback, message: undefined };
}

/** What the user reads when the analysis could not be read but steps finished. */
export const UNREADABLE_ANALYSIS_HEAD =
  "The analysis could not be read; this answer is assembled from the steps' results:";

/** The answer without a model: the finished steps' results under a line that says so. */
export async function assembleAnswer(env: PlanEnv, outcomes: readonly StepOutcome[]): Promise<string> {
  const done = outcomes.filter((outcome) => outcome.status === "done");
  const answer = `${UNREADABLE_ANALYSIS_HEAD}\n\n${outcomesReport(done, Number.POSITIVE_INFINITY)}`;
  await env.emit({ type: "answer_start" });
  await env.emit({ type: "answer_delta", delta: answer });
  await env.emit({ type: "answer_end", answer });
  return answer;
}

function fallbackAnswer(outcomes: readonly StepOutcome[], analysis: PlanAnalysis | undefined): string {
  if (analysis?.achieved && analysis.final_answer) return analysis.final_answer;
  const head = analysis?.achieved
    ? ""
    : "The goal was not fully achieved. What the completed steps found:\n\n";
  return `${head}${outcomesReport(outcomes.filter((outcome) => outcome.status === "done"))}`;
}
