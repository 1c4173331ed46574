import type { AssistantMessage, Message, Model, ToolResultMessage } from "./types.js";
import { WireCache } from "./wire-cache.js";

/** Another model's assistant message, stripped for `model`: built once per message and model. */
const replayCopies = new WireCache<AssistantMessage | undefined>();

/**
 * Makes a transcript safe to send to `model`:
 * - failed assistant turns with nothing in them are dropped;
 * - every tool call gets a result directly after its assistant message (a synthetic error
 *   result for calls left dangling by a crash or an abort), and orphan results are dropped,
 *   because providers reject unpaired calls;
 * - reasoning and provider signatures from another model are stripped: they cannot be replayed
 *   to a different provider, and thinking text alone is not worth its tokens there.
 */
export function prepareReplay(messages: Message[], model: Model): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === "toolResult") continue; // placed with their assistant message below
    if (message.role === "user") {
      out.push(message);
      continue;
    }
    const assistant = replayableAssistant(message, model);
    if (!assistant) continue;
    out.push(assistant);
    let end = i + 1;
    while (end < messages.length && messages[end]!.role === "toolResult") end++;
    for (const part of assistant.content) {
      if (part.type !== "toolCall") continue;
      out.push(
        resultFor(messages, i + 1, end, part.id) ?? missingResult(part.id, part.name, message.timestamp),
      );
    }
  }
  return out;
}

/** The last result for `id` among messages[from..end) (a retried call may have two). Runs are short. */
function resultFor(
  messages: Message[],
  from: number,
  end: number,
  id: string,
): ToolResultMessage | undefined {
  for (let j = end - 1; j >= from; j--) {
    const result = messages[j] as ToolResultMessage;
    if (result.toolCallId === id) return result;
  }
  return undefined;
}

function replayableAssistant(message: AssistantMessage, model: Model): AssistantMessage | undefined {
  const failed = message.stopReason === "error" || message.stopReason === "aborted";
  if (failed && message.content.length === 0) return undefined;
  const sameModel =
    message.api === model.api && message.provider === model.provider && message.model === model.id;
  if (sameModel) return message;
  return replayCopies.get(message, `${model.api}\n${model.provider}\n${model.id}`, () =>
    strippedForOtherModel(message),
  );
}

function strippedForOtherModel(message: AssistantMessage): AssistantMessage | undefined {
  const content = message.content.flatMap((part) => {
    if (part.type === "thinking") return [];
    if (part.signature === undefined) return [part];
    const { signature: _dropped, ...rest } = part;
    return [rest];
  });
  if (content.length === 0) return undefined;
  return { ...message, content };
}

function missingResult(toolCallId: string, toolName: string, timestamp: number): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text: "Tool call was interrupted: no result was recorded." }],
    isError: true,
    timestamp,
  };
}
