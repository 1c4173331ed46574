// The planner: one structuredCall (purpose "plan") turning the goal, the tool catalogue and the
// earlier rounds' results into a DAG of steps. Checks are strict and explained: a plan that
// cannot run (validate.ts) goes back to the planner once with the exact problems; a second bad
// plan, or a reply that no degradation level could read, fails the run with a clear error.

import { type JsonSchema, type Message, type Model, StructuredOutputError } from "@tern/ai";
import { assistantMessage, userMessage } from "../messages.js";
import type { AnyAgentTool } from "../types.js";
import { visibleStructuredCall } from "../visible-structured-call.js";
import type { PlanEnv } from "./env.js";
import { roundsReport } from "./report.js";
import type { PlanRound, PlanStep } from "./types.js";
import { planProblems } from "./validate.js";

const SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    steps: {
      type: "array",
      items: {
        type: "object",
        properties: {
          id: { type: "string", minLength: 1 },
          task: { type: "string", minLength: 1 },
          dependencies: { type: "array", items: { type: "string" } },
          tool_hint: { type: ["string", "null"] },
          model_hint: { enum: ["fast", "reasoning", null] },
        },
        required: ["id", "task"],
      },
    },
  },
  required: ["steps"],
};

const SYSTEM = [
  "You plan how an assistant with tools reaches a goal. Split the goal into steps that each one",
  "focused worker can do with the tools. Steps that do not need each other's results have no",
  "dependency between them so they run in parallel; a step lists in `dependencies` the ids of the",
  "steps whose results it needs. Use few steps: one step is fine for a simple goal.",
  '`tool_hint` names the tool a step will mostly use (or null); `model_hint` is "fast" for',
  'simple lookups, "reasoning" for hard thinking, or null. You never do the work yourself.',
].join(" ");

/** Line length of a tool in the catalogue. */
const TOOL_LINE_CHARS = 160;

export type PlannerOutcome = { ok: true; steps: PlanStep[] } | { ok: false; error: string };

export async function makePlan(
  env: PlanEnv,
  model: Model,
  goal: string,
  tools: readonly AnyAgentTool[],
  rounds: readonly PlanRound[],
): Promise<PlannerOutcome> {
  const messages: Message[] = [userMessage(request(goal, tools, rounds), env.now())];
  let problems: string[] = [];
  for (const attempt of [1, 2]) {
    let raw: unknown;
    try {
      const result = await visibleStructuredCall<{ steps: unknown[] }>(
        env,
        model,
        { systemPrompt: SYSTEM, messages },
        { schema: SCHEMA, name: "make_plan", purpose: "plan" },
      );
      raw = result.value;
    } catch (error) {
      const why = error instanceof StructuredOutputError ? error.message : String(error);
      if (error instanceof StructuredOutputError && error.reason === "aborted")
        return { ok: false, error: "aborted" };
      return { ok: false, error: `The planner's reply could not be read: ${why}` };
    }
    const steps = normalize((raw as { steps: unknown[] }).steps);
    problems = planProblems(steps);
    if (problems.length === 0) return { ok: true, steps };
    if (attempt === 1) {
      messages.push(
        assistantMessage(model, JSON.stringify(raw), env.now()),
        userMessage(
          `That plan cannot run:\n- ${problems.join("\n- ")}\nSend the whole corrected plan.`,
          env.now(),
        ),
      );
    }
  }
  return {
    ok: false,
    error: `The planner's plan could not run, even after it was told why: ${problems.join(" ")}`,
  };
}

function request(goal: string, tools: readonly AnyAgentTool[], rounds: readonly PlanRound[]): string {
  const catalogue = tools.length
    ? tools.map((tool) => `- ${tool.name}: ${firstLine(tool.description)}`).join("\n")
    : "(no tools)";
  const parts = [`Goal:\n${goal}`, `Tools:\n${catalogue}`];
  if (rounds.length > 0) {
    parts.push(
      `Earlier rounds (plan only what is still missing; do not repeat steps that succeeded):\n${roundsReport(rounds)}`,
    );
  }
  parts.push('Answer as {"steps":[{"id","task","dependencies":[],"tool_hint":null,"model_hint":null}]}.');
  return parts.join("\n\n");
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0]?.trim() ?? "";
  return line.length > TOOL_LINE_CHARS ? `${line.slice(0, TOOL_LINE_CHARS - 1)}…` : line;
}

/** Fills the optional fields so every step has the same shape (the schema checked the rest). */
function normalize(steps: unknown[]): PlanStep[] {
  return steps.map((value) => {
    const step = value as Partial<PlanStep> & { id: string; task: string };
    return {
      id: step.id.trim(),
      task: step.task,
      dependencies: (step.dependencies ?? []).map((dep) => dep.trim()),
      tool_hint: step.tool_hint ?? null,
      model_hint: step.model_hint ?? null,
    };
  });
}
