import type OpenAI from "openai";
import { prepareReplay } from "../replay.js";
import type {
  AssistantMessage,
  Context,
  Message,
  Model,
  StreamOptions,
  TextContent,
  ToolResultMessage,
  UserContent,
} from "../types.js";
import { WireCache } from "../wire-cache.js";

type Params = OpenAI.Responses.ResponseCreateParamsStreaming;
type InputItem = OpenAI.Responses.ResponseInputItem;
type InputContent = OpenAI.Responses.ResponseInputContent;

/** What a Responses message item's TextContent.signature holds: its id and, for newer models, its phase. */
export interface MessageItemRef {
  id: string;
  phase?: "commentary" | "final_answer";
}

export function encodeMessageRef(ref: MessageItemRef): string {
  return JSON.stringify(ref);
}

/** Accepts the JSON form above or a bare item id. */
export function decodeMessageRef(signature: string): MessageItemRef | undefined {
  if (!signature.startsWith("{")) return signature ? { id: signature } : undefined;
  try {
    const parsed = JSON.parse(signature) as Partial<MessageItemRef>;
    return typeof parsed.id === "string" ? (parsed as MessageItemRef) : undefined;
  } catch {
    return undefined;
  }
}

/** Builds the Responses API request. Stateless (`store: false`): the whole transcript is sent each time. */
export function buildResponsesRequest(model: Model, context: Context, options: StreamOptions): Params {
  const params: Params = {
    model: model.id,
    input: convertMessages(model, context),
    stream: true,
    store: false,
  };
  if (context.systemPrompt) params.instructions = context.systemPrompt;
  if (options.maxTokens !== undefined) params.max_output_tokens = options.maxTokens;
  if (options.temperature !== undefined) params.temperature = options.temperature;
  if (options.sessionId) params.prompt_cache_key = options.sessionId;
  if (context.tools?.length) {
    params.tools = context.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      // Callers' schemas are not written for strict mode (every property required, no extras).
      strict: false,
    }));
  }
  const choice = options.toolChoice;
  if (choice !== undefined && context.tools?.length) {
    params.tool_choice = typeof choice === "string" ? choice : { type: "function", name: choice.name };
  }
  const format = options.responseFormat;
  if (format?.type === "json_object") params.text = { format: { type: "json_object" } };
  if (format?.type === "json_schema") {
    params.text = {
      format: {
        type: "json_schema",
        name: format.name,
        schema: format.schema,
        strict: format.strict ?? false,
      },
    };
  }
  if (model.abilities.reasoning) {
    // Encrypted reasoning comes back so it can be replayed without server-side storage.
    params.include = ["reasoning.encrypted_content"];
    // "off" leaves the model's default: "none" and "minimal" are each rejected by some reasoning models.
    if (options.reasoning !== "off") {
      params.reasoning = { summary: "auto", ...(options.reasoning && { effort: options.reasoning }) };
    }
  }
  return params;
}

/** Each message's input items, built once: later turns resend them without converting again. */
const wireForms = new WireCache<InputItem[]>();

function convertMessages(model: Model, context: Context): InputItem[] {
  const items: InputItem[] = [];
  // Only image support changes a message's wire form between models.
  const variant = model.abilities.images ? "images" : "";
  for (const message of prepareReplay(context.messages, model)) {
    items.push(...wireForms.get(message, variant, () => convertMessage(model, message)));
  }
  return items;
}

function convertMessage(model: Model, message: Message): InputItem[] {
  if (message.role === "user") {
    const content: UserContent[] =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    const parts = convertUserContent(model, content);
    return parts.length > 0 ? [{ role: "user", content: parts }] : [];
  }
  if (message.role === "assistant") return convertAssistant(message);
  return [convertToolResult(model, message)];
}

function convertUserContent(model: Model, content: UserContent[]): InputContent[] {
  const parts: InputContent[] = [];
  for (const part of content) {
    if (part.type === "text") {
      if (part.text !== "") parts.push({ type: "input_text", text: part.text });
    } else if (model.abilities.images) {
      parts.push({
        type: "input_image",
        detail: "auto",
        image_url: `data:${part.mimeType};base64,${part.data}`,
      });
    } else {
      parts.push({ type: "input_text", text: "(image omitted: this model does not accept images)" });
    }
  }
  return parts;
}

function convertAssistant(message: AssistantMessage): InputItem[] {
  const items: InputItem[] = [];
  for (const part of message.content) {
    if (part.type === "thinking") {
      // Only a serialized reasoning item can be replayed; bare summary text cannot.
      const item = part.signature ? parseReasoningItem(part.signature) : undefined;
      if (item) items.push(item);
    } else if (part.type === "text") {
      if (part.text !== "") items.push(outputMessage(part));
    } else {
      items.push({
        type: "function_call",
        call_id: part.id,
        name: part.name,
        arguments: JSON.stringify(part.arguments),
        ...(part.signature?.startsWith("fc") && { id: part.signature }),
      });
    }
  }
  return items;
}

function outputMessage(part: TextContent): InputItem {
  const ref = part.signature ? decodeMessageRef(part.signature) : undefined;
  if (!ref) return { role: "assistant", content: part.text };
  return {
    type: "message",
    role: "assistant",
    id: ref.id,
    status: "completed",
    content: [{ type: "output_text", text: part.text, annotations: [] }],
    ...(ref.phase && { phase: ref.phase }),
  };
}

function parseReasoningItem(signature: string): OpenAI.Responses.ResponseReasoningItem | undefined {
  try {
    const item = JSON.parse(signature) as OpenAI.Responses.ResponseReasoningItem;
    return item?.type === "reasoning" && typeof item.id === "string" ? item : undefined;
  } catch {
    return undefined;
  }
}

function convertToolResult(model: Model, message: ToolResultMessage): InputItem {
  const hasImages = message.content.some((part) => part.type === "image");
  const text = message.content
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("\n");
  if (!hasImages || !model.abilities.images) {
    return { type: "function_call_output", call_id: message.toolCallId, output: text };
  }
  const output = convertUserContent(
    model,
    message.content,
  ) as OpenAI.Responses.ResponseFunctionCallOutputItemList;
  return { type: "function_call_output", call_id: message.toolCallId, output };
}
