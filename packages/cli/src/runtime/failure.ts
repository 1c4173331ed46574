// Why a run failed, as one line that names the fix.
import type { AgentRunResult } from "@tern/agent";
import { type AssistantMessage, apiKeyVariable, type Model } from "@tern/ai";
import { oneLine } from "../render/format.js";

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
