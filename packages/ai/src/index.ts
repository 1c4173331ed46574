export { type AjvClasses, loadAjv } from "./ajv-loader.js";
export { apiKeyVariable, resolveApiKey } from "./api-keys.js";
export { type Cassette, CassetteError, readCassette } from "./cassette/format.js";
export { type Normalizer, VOLATILE_NORMALIZERS } from "./cassette/normalize.js";
export { type CassetteRecording, type RecordOptions, recordCassette } from "./cassette/record.js";
export { type CassetteReplay, type ReplayOptions, replayCassette } from "./cassette/replay.js";
export {
  REPLAY_MISSES,
  REPLAY_TIMINGS,
  type ReplayMiss,
  type ReplayTiming,
} from "./cassette/replay-modes.js";
export { classifyError, type Failure, isContextOverflow, isRetryable } from "./errors.js";
export { AssistantMessageEventStream } from "./event-stream.js";
export { extractJson, extractJsonCandidates } from "./extract-json.js";
export { AssistantMessageBuilder } from "./message-builder.js";
export {
  builtInModels,
  type ModelConfig,
  ModelRegistry,
  providerDefaults,
  UNKNOWN_MODEL_DEFAULTS,
} from "./models.js";
export {
  createFaux,
  type FauxOptions,
  type FauxProvider,
  type FauxReply,
  type FauxRequest,
  type FauxStep,
  fauxText,
  fauxThinking,
  fauxToolCall,
} from "./providers/faux.js";
export { redactStream } from "./redacted-stream.js";
export { REDACTED, Redactor, type RedactorOptions } from "./redactor.js";
export { type RetryPolicy, retryPolicy } from "./retry.js";
export { complete, registerProvider, stream } from "./stream.js";
export {
  type StructuredCallOptions,
  type StructuredFailure,
  type StructuredLevel,
  StructuredOutputError,
  type StructuredResult,
  structuredCall,
} from "./structured-call.js";
export {
  estimateContextTokens,
  estimateMessageTokens,
  estimateTextTokens,
  estimateToolTokens,
} from "./tokens.js";
export * from "./types.js";
export { addUsage, addUsageInto, emptyUsage, priceUsage } from "./usage.js";
