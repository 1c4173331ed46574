// Why a run failed, as one line that names the fix.
import type { AgentRunResult } from "@tern/agent";
import { type AssistantMessage, apiKeyVariable, type Model } from "@tern/ai";
import { oneLine, plural } from "../render/format.js";

/** How providers word a stream that began and ended before the reply was finished. */
const CUT_SHORT = /^stream ended before/i;

export function failedMessage(result: AgentRunResult): AssistantMessage | undefined {
  for (let i = result.messages.length - 1; i >= 0; i--) {
    const message = result.messages[i] as AssistantMessage;
    if (message.role === "assistant") return message.stopReason === "error" ? message : undefined;
  }
  return undefined;
}

export function explainFailure(result: AgentRunResult, model: Model): string {
  const failed = failedMessage(result);
  const message = oneLine(failed?.errorMessage ?? result.errorMessage ?? "the run failed", 300).replace(
    /\.:/g,
    ":",
  );
  const where = model.baseUrl ?? `the ${model.provider} API`;
  switch (failed?.errorKind) {
    case "network":
      // The server answered, then the reply stopped short: "cannot reach" would send people looking
      // at the wrong thing.
      if (CUT_SHORT.test(message))
        return `${where} stopped the reply before it was complete (${message}); the server may have crashed or dropped the connection: try again, and check its log`;
      return `cannot reach ${where} (${message}); is the server running and is --base-url right?`;
    case "auth":
      return `${model.provider} refused the API key (${message}); check ${apiKeyVariable(model.provider)} or --api-key`;
    case "rate_limit":
      return `${model.provider} rate limit (${message}); wait a moment and retry, or pick another model with --model`;
    case "overloaded":
    case "server":
      return `${model.provider} failed (${message}); try again in a moment`;
    case "context_overflow":
      return `the conversation no longer fits ${model.id}'s context window (${message}); start a new session, or /compact in tern chat`;
    case "invalid_request":
      if (/model|not.found|404|does not exist/i.test(message))
        return `${model.provider} does not know model "${model.id}" (${message}); check --model (tern models, or the server's model list)`;
      return `${model.provider} rejected the request (${message})`;
    default:
      return message;
  }
}

/**
 * Why a run that ended normally has no answer to stand behind: the answer synthesis failed (the
 * loop's own last reply was printed instead), or the final reply was empty. Undefined when fine.
 */
export function answerProblem(
  result: AgentRunResult,
  synthesisError: string | undefined,
  sessionId: string,
): string | undefined {
  if (synthesisError !== undefined)
    return `${lowerFirst(oneLine(synthesisError, 300))}; what was printed is the model's own last reply, not a synthesized answer`;
  // "terminated": a tool ended the run on purpose; it owes no reply.
  if (result.stopReason !== "stop" || result.answer.trim() !== "") return undefined;
  const calls = result.messages.filter((message) => message.role === "toolResult").length;
  if (calls === 0)
    return "the model sent an empty reply (no text, no tool call); try again, or pick another model with --model";
  return `the model ran ${plural(calls, "tool call")} but its final reply was empty; see what it did: tern sessions show ${sessionId.slice(0, 8)}`;
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
