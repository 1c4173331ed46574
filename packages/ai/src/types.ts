// Public contracts of @tern/ai: messages, models, stream events and options.
// Everything here is plain data (JSON-serialisable) so sessions and servers can store and ship it.

export type Api = "openai-completions" | "openai-responses" | "anthropic-messages" | "faux";

export type StopReason = "stop" | "toolUse" | "length" | "error" | "aborted";

export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high";

// ---------------------------------------------------------------- content parts

export interface TextContent {
  type: "text";
  text: string;
  /** Provider item id (OpenAI Responses) kept so the text can be replayed to the same provider. */
  signature?: string;
}

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  /** Opaque provider data needed to replay the reasoning (Anthropic signature, Responses encrypted item). */
  signature?: string;
  /** The provider hid the reasoning; only `signature` carries it. */
  redacted?: boolean;
}

export interface ImageContent {
  type: "image";
  /** Base64 without a data: prefix. */
  data: string;
  mimeType: string;
}

export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Provider item id (OpenAI Responses `fc_...`) kept for replay. */
  signature?: string;
  /** Set when the streamed arguments were not a valid JSON object; `arguments` is then a best effort. */
  parseError?: string;
}

export type AssistantContent = TextContent | ThinkingContent | ToolCall;
export type UserContent = TextContent | ImageContent;

// ---------------------------------------------------------------- messages

export interface Cost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

export interface Usage {
  /** Prompt tokens not served from cache. */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  /** USD, from the model's prices. */
  cost: Cost;
}

export interface UserMessage {
  role: "user";
  content: string | UserContent[];
  timestamp: number;
  /** Kept verbatim by context compaction (the original request, interrupts). Never sent to providers. */
  pinned?: boolean;
}

export type ErrorKind =
  | "auth"
  | "rate_limit"
  | "overloaded"
  | "context_overflow"
  | "invalid_request"
  | "server"
  | "network"
  | "aborted"
  | "unknown";

export interface AssistantMessage {
  role: "assistant";
  content: AssistantContent[];
  api: Api;
  provider: string;
  model: string;
  usage: Usage;
  stopReason: StopReason;
  /** Set when stopReason is "error" or "aborted". */
  errorMessage?: string;
  errorKind?: ErrorKind;
  /** The provider's response id, when it sent one. */
  responseId?: string;
  timestamp: number;
  /** Kept verbatim by context compaction. Never sent to providers. */
  pinned?: boolean;
}

export interface ToolResultMessage<TDetails = unknown> {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: UserContent[];
  isError: boolean;
  /** Structured data for UIs; never sent to the model. */
  details?: TDetails;
  timestamp: number;
  /** Kept verbatim by context compaction. Never sent to providers. */
  pinned?: boolean;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

// ---------------------------------------------------------------- tools and context

/** A JSON Schema object. Kept loose on purpose: providers take it as-is. */
export type JsonSchema = Record<string, unknown>;

export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface Context {
  systemPrompt?: string;
  messages: Message[];
  tools?: ToolSpec[];
}

// ---------------------------------------------------------------- models

export interface ModelAbilities {
  toolCall: boolean;
  jsonMode: boolean;
  reasoning: boolean;
  images: boolean;
}

/** USD per million tokens. */
export interface ModelPrices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface Model {
  id: string;
  name: string;
  api: Api;
  /** Who serves it: "openai", "anthropic", "ollama", "faux", ... Used for API-key lookup. */
  provider: string;
  baseUrl?: string;
  contextWindow: number;
  maxOutputTokens: number;
  abilities: ModelAbilities;
  prices: ModelPrices;
  /** Extra HTTP headers for every request to this model. */
  headers?: Record<string, string>;
}

// ---------------------------------------------------------------- stream events

export type AssistantEvent =
  | { type: "start"; partial: AssistantMessage }
  | { type: "text_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "text_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "thinking_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "thinking_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "toolcall_start"; contentIndex: number; partial: AssistantMessage }
  /** `partial.content[contentIndex].arguments` holds the arguments parsed so far. */
  | { type: "toolcall_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
  | { type: "done"; reason: "stop" | "length" | "toolUse"; message: AssistantMessage }
  | {
      type: "error";
      reason: "error" | "aborted";
      error: AssistantMessage;
      /** Server-requested wait before a retry (Retry-After), when it sent one. */
      retryAfterMs?: number;
      /** HTTP status, when the failure came from a response. */
      status?: number;
    };

export type AssistantEventType = AssistantEvent["type"];

// ---------------------------------------------------------------- options

export interface RetryOptions {
  /** Attempts after the first. Default 3. */
  maxRetries?: number;
  /** First backoff step. Default 1000 ms. */
  baseDelayMs?: number;
  /** Cap on any one wait, Retry-After included. Default 60 000 ms. */
  maxDelayMs?: number;
}

/** A failed attempt about to be retried: for progress displays ("retrying in 4 s …"). */
export interface RetryNotice {
  /** The attempt about to start: 2 for the first retry. */
  attempt: number;
  /** Attempts in all: the first one plus `maxRetries`. */
  maxAttempts: number;
  /** The wait before it (the server's Retry-After when it sent one, capped by maxDelayMs). */
  delayMs: number;
  /** Why the last attempt failed. */
  errorKind: ErrorKind;
  errorMessage: string;
  /** HTTP status of the failed attempt, when it came from a response. */
  status?: number;
}

export type ResponseFormat =
  | { type: "json_object" }
  | { type: "json_schema"; name: string; schema: JsonSchema; strict?: boolean };

export interface StreamOptions {
  apiKey?: string;
  /** Called when no apiKey option is given; may return undefined to fall back to the environment. */
  getApiKey?: (provider: string) => string | undefined | Promise<string | undefined>;
  signal?: AbortSignal;
  temperature?: number;
  maxTokens?: number;
  reasoning?: ThinkingLevel;
  /** "auto" (default), "none", "required", or force one tool by name. */
  toolChoice?: "auto" | "none" | "required" | { name: string };
  responseFormat?: ResponseFormat;
  headers?: Record<string, string>;
  retry?: RetryOptions;
  /** Told before each retry's wait; awaited. A listener that throws does not stop the retry. */
  onRetry?: (notice: RetryNotice) => void | Promise<void>;
  /** Identifies the conversation to providers that cache by it. */
  sessionId?: string;
  /** Sees each request body before it is sent (debugging, payload capture). */
  onPayload?: (payload: unknown) => void;
  /** Sends the HTTP request (default: undici's `fetch`); a cassette's `fetch` records or replays it. */
  fetch?: ModelFetch;
  /**
   * Base URL by wire API for a model that names none (a proxy, a gateway); `model.baseUrl` wins,
   * the vendor's URL is the default. The library reads no environment: a host maps its own
   * (the CLI: `OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`).
   */
  baseUrls?: Partial<Record<Api, string>>;
}

/** undici's `fetch`, the one function every built-in provider sends its requests through. */
export type ModelFetch = typeof import("undici").fetch;

/** What every provider implements. Must not throw: failures end the stream with an error event. */
export type StreamFunction = (
  model: Model,
  context: Context,
  options: StreamOptions,
) => AsyncIterable<AssistantEvent> & { result(): Promise<AssistantMessage> };
