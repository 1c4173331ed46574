// Reads a JSON-mode reply: one object, `{"type":"tool_call","reasoning","tool_name","tool_args"}`
// or `{"type":"final_answer","reasoning","answer"}`, found anywhere in the text (fences and prose
// around it are tolerated by extractJsonCandidates). A missing or unknown type is a final answer;
// null tool_args are `{}`.

import { extractJsonCandidates } from "@tern/ai";

export type JsonReply =
  | {
      type: "tool_call";
      reasoning: string;
      toolName: string;
      /** The arguments as JSON text for the message builder, which parses them strictly ("" is `{}`). */
      argsJson: string;
    }
  | { type: "final_answer"; reasoning: string; answer: string }
  | { type: "unparsable" };

const MAX_CANDIDATES = 10;

export function readJsonReply(text: string): JsonReply {
  let seen = 0;
  for (const candidate of extractJsonCandidates(text)) {
    if (++seen > MAX_CANDIDATES) break;
    if (typeof candidate !== "object" || candidate === null || Array.isArray(candidate)) continue;
    return fromObject(candidate as Record<string, unknown>, text);
  }
  return { type: "unparsable" };
}

function fromObject(object: Record<string, unknown>, text: string): JsonReply {
  const reasoning = typeof object.reasoning === "string" ? object.reasoning.trim() : "";
  if (object.type === "tool_call") {
    const name = typeof object.tool_name === "string" ? object.tool_name.trim() : "";
    // A tool call without a tool cannot run; the model gets one chance to resend it.
    if (name === "") return { type: "unparsable" };
    return { type: "tool_call", reasoning, toolName: name, argsJson: argsJson(object.tool_args) };
  }
  const answer = object.answer;
  if (typeof answer === "string") return { type: "final_answer", reasoning, answer };
  if (answer !== undefined && answer !== null) {
    return { type: "final_answer", reasoning, answer: JSON.stringify(answer) };
  }
  return { type: "final_answer", reasoning, answer: text.trim() };
}

function argsJson(args: unknown): string {
  if (args === undefined || args === null) return "";
  // Some models send the arguments as a JSON string; the builder parses it (and reports garbage).
  if (typeof args === "string") return args;
  return JSON.stringify(args);
}
