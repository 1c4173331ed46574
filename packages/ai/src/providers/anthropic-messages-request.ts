import type Anthropic from "@anthropic-ai/sdk";
import { prepareReplay } from "../replay.js";
import type {
  AssistantMessage,
  Context,
  Model,
  StreamOptions,
  ThinkingLevel,
  ToolResultMessage,
  UserContent,
} from "../types.js";
import { WireCache } from "../wire-cache.js";

type Params = Anthropic.MessageCreateParamsStreaming;
type MessageParam = Anthropic.MessageParam;
type Block = Anthropic.ContentBlockParam;
type ImageMediaType = Anthropic.Base64ImageSource["media_type"];

/** Thinking budgets per level; Anthropic's minimum is 1024 and the budget must stay below max_tokens. */
const THINKING_BUDGETS: Record<Exclude<ThinkingLevel, "off">, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16_384,
};
const MIN_THINKING_BUDGET = 1024;

/** Builds the Messages API request. `responseFormat` is ignored: Anthropic has no native JSON mode. */
export function buildAnthropicRequest(model: Model, context: Context, options: StreamOptions): Params {
  const maxTokens = options.maxTokens ?? model.maxOutputTokens;
  const params: Params = {
    model: model.id,
    max_tokens: maxTokens,
    messages: convertMessages(model, context),
    stream: true,
  };
  if (context.systemPrompt) params.system = context.systemPrompt;
  if (context.tools?.length) {
    params.tools = context.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: { type: "object", ...tool.parameters } as Anthropic.Tool.InputSchema,
    }));
  }
  const choice = toolChoice(options, context);
  if (choice) params.tool_choice = choice;
  // Anthropic rejects thinking together with a forced tool choice, and in a tool loop whose last
  // assistant turn has no thinking to replay (it came from another model).
  const forced = choice?.type === "any" || choice?.type === "tool";
  const canThink = !forced && !midLoopWithoutThinking(params.messages);
  const budget = canThink ? thinkingBudget(model, options.reasoning, maxTokens) : undefined;
  if (budget !== undefined) params.thinking = { type: "enabled", budget_tokens: budget };
  // With thinking on, only the default temperature is accepted. The client's types no longer
  // list `temperature`, but older models still take it when a caller asks for it.
  else if (options.temperature !== undefined) {
    (params as Params & { temperature?: number }).temperature = options.temperature;
  }
  return params;
}

function thinkingBudget(model: Model, level: ThinkingLevel | undefined, maxTokens: number) {
  if (!model.abilities.reasoning || level === undefined || level === "off") return undefined;
  // Leave at least 1024 tokens for the answer when there is room for both.
  const room = maxTokens > 2 * MIN_THINKING_BUDGET ? maxTokens - MIN_THINKING_BUDGET : maxTokens - 1;
  const budget = Math.min(THINKING_BUDGETS[level], room);
  return budget >= MIN_THINKING_BUDGET ? budget : undefined;
}

/** True when the request continues a tool loop whose assistant turn does not open with thinking. */
function midLoopWithoutThinking(messages: MessageParam[]): boolean {
  const last = messages.at(-1);
  const continuesLoop =
    last?.role === "user" &&
    Array.isArray(last.content) &&
    last.content.some((b) => b.type === "tool_result");
  if (!continuesLoop) return false;
  const assistant = messages.at(-2);
  const first = Array.isArray(assistant?.content) ? assistant.content[0] : undefined;
  return first?.type !== "thinking" && first?.type !== "redacted_thinking";
}

function toolChoice(options: StreamOptions, context: Context): Anthropic.ToolChoice | undefined {
  const choice = options.toolChoice;
  if (choice === undefined || !context.tools?.length) return undefined;
  if (choice === "auto") return { type: "auto" };
  if (choice === "none") return { type: "none" };
  if (choice === "required") return { type: "any" };
  return { type: "tool", name: choice.name };
}

/**
 * Anthropic tool ids must match ^[a-zA-Z0-9_-]+$ and be at most 64 characters. Ids from other
 * providers are mapped the same way for calls and their results; long ids keep a hash suffix so
 * two of them cannot collide after truncation.
 */
export function sanitizeToolId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, "_") || "tool";
  if (clean.length <= 64) return clean;
  return `${clean.slice(0, 55)}_${hash(id)}`;
}

function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** Each message's blocks, built once: later turns resend them without converting again. */
const wireForms = new WireCache<Block[] | Anthropic.ToolResultBlockParam>();

function convertMessages(model: Model, context: Context): MessageParam[] {
  const out: MessageParam[] = [];
  // Only image support changes a message's wire form between models.
  const variant = model.abilities.images ? "images" : "";
  for (const message of prepareReplay(context.messages, model)) {
    if (message.role === "user") {
      const blocks = wireForms.get(message, variant, () =>
        typeof message.content === "string"
          ? message.content === ""
            ? []
            : [{ type: "text", text: message.content }]
          : convertUserContent(model, message.content),
      ) as Block[];
      if (blocks.length > 0) out.push({ role: "user", content: blocks });
    } else if (message.role === "assistant") {
      const blocks = wireForms.get(message, "", () => convertAssistant(message)) as Block[];
      if (blocks.length > 0) out.push({ role: "assistant", content: blocks });
    } else {
      const block = wireForms.get(message, variant, () =>
        convertToolResult(model, message),
      ) as Anthropic.ToolResultBlockParam;
      // Results of one assistant turn travel together in one user message. Its array is made
      // here (a user message's cached blocks never hold tool results), so appending is safe.
      const last = out.at(-1);
      const lastContent = last?.role === "user" && Array.isArray(last.content) ? last.content : undefined;
      if (lastContent?.every((b) => b.type === "tool_result")) lastContent.push(block);
      else out.push({ role: "user", content: [block] });
    }
  }
  return out;
}

function convertUserContent(model: Model, content: UserContent[]): Block[] {
  const blocks: Block[] = [];
  for (const part of content) {
    if (part.type === "text") {
      if (part.text !== "") blocks.push({ type: "text", text: part.text });
    } else if (model.abilities.images) {
      blocks.push({
        type: "image",
        source: { type: "base64", media_type: part.mimeType as ImageMediaType, data: part.data },
      });
    } else {
      blocks.push({ type: "text", text: "(image omitted: this model does not accept images)" });
    }
  }
  return blocks;
}

function convertAssistant(message: AssistantMessage): Block[] {
  const blocks: Block[] = [];
  for (const part of message.content) {
    if (part.type === "text") {
      if (part.text !== "") blocks.push({ type: "text", text: part.text });
    } else if (part.type === "thinking") {
      // Thinking without its signature is rejected by the API, so it is not replayed.
      if (!part.signature) continue;
      if (part.redacted) blocks.push({ type: "redacted_thinking", data: part.signature });
      else blocks.push({ type: "thinking", thinking: part.thinking, signature: part.signature });
    } else {
      blocks.push({ type: "tool_use", id: sanitizeToolId(part.id), name: part.name, input: part.arguments });
    }
  }
  return blocks;
}

function convertToolResult(model: Model, message: ToolResultMessage): Anthropic.ToolResultBlockParam {
  const content = convertUserContent(model, message.content) as Anthropic.ToolResultBlockParam["content"];
  return {
    type: "tool_result",
    tool_use_id: sanitizeToolId(message.toolCallId),
    ...(Array.isArray(content) && content.length > 0 && { content }),
    ...(message.isError && { is_error: true }),
  };
}
