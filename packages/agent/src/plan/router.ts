// Auto mode's router: one cheap structuredCall (purpose "route") deciding whether a task is worth
// a plan or is one ReAct loop's job. Any failure (unreadable reply, provider error) means the
// loop, the strategy that needs nothing from the router.

import { type JsonSchema, type Model, StructuredOutputError } from "@tern/ai";
import { userMessage } from "../messages.js";
import { visibleStructuredCall } from "../visible-structured-call.js";
import type { PlanEnv } from "./env.js";

const SCHEMA: JsonSchema = {
  type: "object",
  properties: { strategy: { enum: ["loop", "plan"] }, reason: { type: "string" } },
  required: ["strategy"],
};

const SYSTEM = [
  "You decide how an assistant with tools should work on a task.",
  '"plan" when the task splits into several sub-tasks, some of which can run in parallel',
  '(research across sources, many files, several independent checks); "loop" for anything',
  "conversational, small, or sequential by nature. When unsure, answer loop.",
].join(" ");

export async function route(env: PlanEnv, model: Model, task: string): Promise<"loop" | "plan"> {
  try {
    const { value } = await visibleStructuredCall<{ strategy: "loop" | "plan" }>(
      env,
      model,
      {
        systemPrompt: SYSTEM,
        messages: [
          userMessage(
            `Task:\n${task}\n\nAnswer as {"strategy": "loop" | "plan", "reason": string}.`,
            env.now(),
          ),
        ],
      },
      { schema: SCHEMA, name: "choose_strategy", purpose: "route" },
    );
    return value.strategy === "plan" ? "plan" : "loop";
  } catch (error) {
    if (error instanceof StructuredOutputError && error.reason === "aborted") throw error;
    return "loop";
  }
}
