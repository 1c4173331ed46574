// The analyzer: one structuredCall (purpose "analyze") judging whether a round's results meet the
// goal. A reply that no degradation level could read counts as "not achieved, confidence 0",
// marked `unreadable`, never as a crash; confidence is clamped to 0..1 whatever the model says.

import { type JsonSchema, type Model, StructuredOutputError } from "@tern/ai";
import { userMessage } from "../messages.js";
import { visibleStructuredCall } from "../visible-structured-call.js";
import type { PlanEnv } from "./env.js";
import { outcomesReport } from "./report.js";
import type { PlanAnalysis, StepOutcome } from "./types.js";

const SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    achieved: { type: "boolean" },
    confidence: { type: "number" },
    reasoning: { type: "string" },
    final_answer: { type: ["string", "null"] },
  },
  required: ["achieved", "confidence"],
};

const SYSTEM =
  "You judge whether the results of a plan's steps achieve a goal. Be strict: achieved only when the results really answer the goal. confidence is how sure you are of your verdict, from 0 to 1.";

export class PlanAborted extends Error {}

export async function analyze(
  env: PlanEnv,
  model: Model,
  goal: string,
  outcomes: readonly StepOutcome[],
): Promise<PlanAnalysis> {
  const prompt = [
    `Goal:\n${goal}`,
    `Results of the steps:\n${outcomesReport(outcomes)}`,
    'Answer as {"achieved": boolean, "confidence": number, "reasoning": string, "final_answer": string or null}.',
  ].join("\n\n");
  try {
    const { value } = await visibleStructuredCall<Record<string, unknown>>(
      env,
      model,
      { systemPrompt: SYSTEM, messages: [userMessage(prompt, env.now())] },
      { schema: SCHEMA, name: "analyze_results", purpose: "analyze" },
    );
    return {
      achieved: value.achieved === true,
      confidence: clamp(value.confidence as number),
      reasoning: typeof value.reasoning === "string" ? value.reasoning : "",
      final_answer: typeof value.final_answer === "string" ? value.final_answer : null,
    };
  } catch (error) {
    if (error instanceof StructuredOutputError && error.reason === "aborted") throw new PlanAborted();
    const why = error instanceof Error ? error.message : String(error);
    return {
      achieved: false,
      confidence: 0,
      reasoning: `The analysis could not be read: ${why}`,
      final_answer: null,
      unreadable: true,
    };
  }
}

function clamp(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
