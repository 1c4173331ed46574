import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartImage,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionToolChoiceOption,
} from "openai/resources/chat/completions";
import { prepareReplay } from "../replay.js";
import type {
  AssistantMessage,
  Context,
  Message,
  Model,
  StreamOptions,
  ToolResultMessage,
  UserContent,
} from "../types.js";
import { WireCache } from "../wire-cache.js";

/**
 * What differs between Chat Completions servers. Decided from the provider name and the base URL,
 * because compatible servers reject fields they do not know (Mistral answers 422 to
 * `stream_options` and `max_completion_tokens`).
 */
export interface CompletionsCompat {
  /** OpenAI wants max_completion_tokens (its reasoning models reject max_tokens); every other server knows max_tokens. */
  maxTokensField: "max_completion_tokens" | "max_tokens";
  /** Ask for a trailing usage chunk. Mistral sends usage on its own and rejects the option. */
  streamUsage: boolean;
  reasoningEffort: boolean;
  /** reasoning_effort "minimal" exists only at OpenAI; elsewhere the nearest level servers know is "low". */
  minimalEffort: boolean;
  /** OpenAI's prompt_cache_key, filled from options.sessionId. */
  promptCacheKey: boolean;
}

export function completionsCompat(model: Model): CompletionsCompat {
  const host = hostOf(model.baseUrl);
  const isOpenAI =
    model.provider === "openai" ||
    model.provider === "azure" ||
    host === "api.openai.com" ||
    host.endsWith(".openai.azure.com");
  const isMistral = model.provider === "mistral" || host === "api.mistral.ai";
  return {
    maxTokensField: isOpenAI ? "max_completion_tokens" : "max_tokens",
    streamUsage: !isMistral,
    reasoningEffort: model.abilities.reasoning && !isMistral,
    minimalEffort: isOpenAI,
    promptCacheKey: isOpenAI,
  };
}

/** The Chat Completions request body for one call. Pure: the same inputs give the same body. */
export function buildCompletionsRequest(
  model: Model,
  context: Context,
  options: StreamOptions,
): ChatCompletionCreateParamsStreaming {
  const compat = completionsCompat(model);
  const messages: ChatCompletionMessageParam[] = [];
  if (context.systemPrompt) messages.push({ role: "system", content: context.systemPrompt });
  messages.push(...convertMessages(prepareReplay(context.messages, model), model));

  const body: ChatCompletionCreateParamsStreaming = { model: model.id, messages, stream: true };
  if (compat.streamUsage) body.stream_options = { include_usage: true };
  const tools = context.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    if (options.toolChoice !== undefined) body.tool_choice = toolChoice(options.toolChoice);
  }
  if (options.responseFormat?.type === "json_object") body.response_format = { type: "json_object" };
  if (options.responseFormat?.type === "json_schema") {
    const { name, schema, strict } = options.responseFormat;
    body.response_format = {
      type: "json_schema",
      json_schema: { name, schema, ...(strict !== undefined && { strict }) },
    };
  }
  if (options.maxTokens !== undefined) body[compat.maxTokensField] = options.maxTokens;
  if (options.temperature !== undefined) body.temperature = options.temperature;
  if (compat.reasoningEffort && options.reasoning && options.reasoning !== "off") {
    body.reasoning_effort =
      options.reasoning === "minimal" && !compat.minimalEffort ? "low" : options.reasoning;
  }
  if (compat.promptCacheKey && options.sessionId) body.prompt_cache_key = options.sessionId;
  return body;
}

function toolChoice(choice: NonNullable<StreamOptions["toolChoice"]>): ChatCompletionToolChoiceOption {
  return typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
}

/** Each message's wire form, built once: later turns resend it without converting it again. */
const wireForms = new WireCache<ChatCompletionMessageParam | ToolWire | undefined>();

/** Converts a replay-safe transcript (every tool call already paired with a result). */
function convertMessages(messages: Message[], model: Model): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  // Tool messages may carry only text: their images travel in one user message after the run of results.
  let pendingImages: ChatCompletionContentPartImage[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    out.push({
      role: "user",
      content: [{ type: "text", text: "Images returned by the tool calls above:" }, ...pendingImages],
    });
    pendingImages = [];
  };
  for (const message of messages) {
    if (message.role !== "toolResult") flushImages();
    // Only image support changes a message's wire form between models.
    const variant = model.abilities.images ? "images" : "";
    if (message.role === "user") {
      const converted = wireForms.get(message, variant, () => ({
        role: "user",
        content: userContent(message.content, model),
      }));
      out.push(converted as ChatCompletionMessageParam);
    } else if (message.role === "assistant") {
      const converted = wireForms.get(message, "", () => assistantMessage(message));
      if (converted) out.push(converted as ChatCompletionMessageParam);
    } else {
      const { tool, images } = wireForms.get(message, variant, () => toolMessage(message, model)) as ToolWire;
      out.push(tool);
      pendingImages.push(...images);
    }
  }
  flushImages();
  return out;
}

/** Text-only content goes as a plain string: several compatible servers reject part arrays. */
function userContent(content: string | UserContent[], model: Model): string | ChatCompletionContentPart[] {
  if (typeof content === "string") return content;
  if (content.every((part) => part.type === "text")) return content.map((part) => part.text).join("\n");
  return content.map((part): ChatCompletionContentPart => {
    if (part.type === "text") return { type: "text", text: part.text };
    if (!model.abilities.images) return { type: "text", text: IMAGE_OMITTED };
    return imagePart(part.mimeType, part.data);
  });
}

/** Thinking is not sent back: Chat Completions has no field for it. */
function assistantMessage(message: AssistantMessage): ChatCompletionMessageParam | undefined {
  const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
  const toolCalls: ChatCompletionMessageToolCall[] = message.content.flatMap((part) =>
    part.type === "toolCall"
      ? [
          {
            id: part.id,
            type: "function" as const,
            function: { name: part.name, arguments: JSON.stringify(part.arguments) },
          },
        ]
      : [],
  );
  if (toolCalls.length === 0) return text === "" ? undefined : { role: "assistant", content: text };
  return { role: "assistant", content: text === "" ? null : text, tool_calls: toolCalls };
}

interface ToolWire {
  tool: ChatCompletionMessageParam;
  images: ChatCompletionContentPartImage[];
}

function toolMessage(message: ToolResultMessage, model: Model): ToolWire {
  const { text, images } = toolResultContent(message, model);
  return { tool: { role: "tool", tool_call_id: message.toolCallId, content: text }, images };
}

function toolResultContent(message: ToolResultMessage, model: Model) {
  const texts: string[] = [];
  const images: ChatCompletionContentPartImage[] = [];
  for (const part of message.content) {
    if (part.type === "text") texts.push(part.text);
    else if (model.abilities.images) images.push(imagePart(part.mimeType, part.data));
    else texts.push(IMAGE_OMITTED);
  }
  let text = texts.join("\n");
  // Servers reject an empty tool message; say where the output went instead.
  if (text === "") text = images.length > 0 ? "(image output follows)" : "(no output)";
  return { text, images };
}

const IMAGE_OMITTED = "(image omitted: this model does not accept images)";

function imagePart(mimeType: string, data: string): ChatCompletionContentPartImage {
  return { type: "image_url", image_url: { url: `data:${mimeType};base64,${data}` } };
}

function hostOf(baseUrl: string | undefined): string {
  if (!baseUrl) return "api.openai.com"; // the client's default
  try {
    return new URL(baseUrl).hostname;
  } catch {
    return "";
  }
}
