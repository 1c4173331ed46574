// Answer synthesis: in "synthesize" mode the tool loop runs without streaming text deltas, then one
// streamed call turns the trace (the question, each tool call and its result, results cut to a
// named length) into the answer, shown as answer_start / answer_delta / answer_end. The deltas
// after the last answer_start always add up to answer_end's answer. A failed synthesis falls back
// to the loop's own last text: an error event, a fresh answer_start when deltas had streamed (what
// streamed is void), the fallback as one delta, and answer_end with `error` saying why. A run that
// called no tools has nothing to synthesize: its answer is sent through the same events as it is.

import type { Model, ToolCall, ToolResultMessage } from "@tern/ai";
import { messageText, userMessage } from "../messages.js";
import type { LoopPolicy, PolicyRun } from "../policy.js";
import type { AgentStopReason } from "../types.js";
import { setting } from "./setting.js";

export type AnswerMode = "direct" | "synthesize";

export const DEFAULT_SYNTHESIS_RESULT_CHARS = 2_000;
export const TRUNCATION_MARK = "… [truncated]";

export const SYNTHESIS_SYSTEM_PROMPT = [
  "You write the final answer to a user's question from the work an assistant did with tools.",
  "Answer the question directly, in markdown, in the same language as the question.",
  "Use the facts in the tool results; if they do not settle something, say so briefly.",
  "No meta-commentary: do not mention tools, steps, the assistant or these instructions.",
].join("\n");

export interface AnswerSynthesisOptions {
  /** Characters of each tool result the trace keeps. Default 2,000. */
  maxResultChars?: number;
  /** The model that writes the answer (default: the run's model). */
  model?: Model;
  systemPrompt?: string;
}

/** Runs whose end leaves an answer worth writing up. */
const SYNTHESIZED: ReadonlySet<AgentStopReason> = new Set(["stop", "terminated"]);

export function answerSynthesis(options: AnswerSynthesisOptions = {}): LoopPolicy {
  const maxChars = setting(options.maxResultChars, DEFAULT_SYNTHESIS_RESULT_CHARS);
  return {
    name: "answer_synthesis",
    start: (run) => {
      run.setStreamDeltas(false);
      const steps: { call: ToolCall; result: ToolResultMessage | undefined }[] = [];
      return {
        afterToolBatch: (_run, { calls, results }) => {
          for (const call of calls)
            steps.push({ call, result: results.find((r) => r.toolCallId === call.id) });
        },
        onRunEnd: async (_run, end) => {
          if (!SYNTHESIZED.has(end.stopReason)) return undefined;
          await run.emit({ type: "answer_start" });
          if (steps.length === 0) return deliver(run, end.answer);
          const outcome = await synthesize(run, steps, maxChars, options);
          if (outcome.error === undefined) {
            await run.emit({ type: "answer_end", answer: outcome.answer });
            return { answer: outcome.answer };
          }
          const error = `Answer synthesis failed: ${outcome.error}`;
          await run.emit({ type: "error", source: "policy", message: error });
          if (outcome.answer !== "") await run.emit({ type: "answer_start" });
          return deliver(run, end.answer, error);
        },
      };
    },
  };
}

/** An answer that is already written, sent as one delta. */
async function deliver(run: PolicyRun, answer: string, error?: string): Promise<{ answer: string }> {
  if (answer !== "") await run.emit({ type: "answer_delta", delta: answer });
  await run.emit(
    error === undefined ? { type: "answer_end", answer } : { type: "answer_end", answer, error },
  );
  return { answer };
}

/** The streamed answer (exactly what its deltas add up to), or why there is none. */
async function synthesize(
  run: PolicyRun,
  steps: { call: ToolCall; result: ToolResultMessage | undefined }[],
  maxChars: number,
  options: AnswerSynthesisOptions,
): Promise<{ answer: string; error?: string }> {
  let answer = "";
  const callOptions = {
    onEvent: async (event: { type: string; delta?: string }) => {
      if (event.type === "text_delta" && event.delta) {
        answer += event.delta;
        await run.emit({ type: "answer_delta", delta: event.delta });
      }
    },
    ...(options.model && { model: options.model }),
  };
  const message = await run.callModel(
    {
      systemPrompt: options.systemPrompt ?? SYNTHESIS_SYSTEM_PROMPT,
      messages: [userMessage(traceText(run.prompt, steps, maxChars), run.now())],
    },
    "synthesis",
    callOptions,
  );
  if (message.stopReason === "error" || message.stopReason === "aborted")
    return { answer, error: message.errorMessage ?? message.stopReason };
  if (answer.trim() === "") return { answer, error: "the answer was empty" };
  return { answer };
}

/** The question and each tool call with its (cut) result. */
function traceText(
  question: string,
  steps: { call: ToolCall; result: ToolResultMessage | undefined }[],
  maxChars: number,
): string {
  const lines = [`Question:\n${question}`, "", "Tool calls and their results:"];
  steps.forEach(({ call, result }, index) => {
    const status = result?.isError ? " (failed)" : "";
    lines.push(`${index + 1}. ${call.name} ${JSON.stringify(call.arguments)}${status}`);
    lines.push(`Result:\n${cut(result ? messageText(result) : "(no result)", maxChars)}`);
  });
  lines.push("", "Write the final answer to the question.");
  return lines.join("\n");
}

function cut(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars)}${TRUNCATION_MARK}` : text;
}
