export { type AjvClasses, loadAjv } from "./ajv-loader.js";
export { apiKeyVariable, missingKeyMessage, resolveApiKey } from "./api-keys.js";
export {
  type Cassette,
  CassetteError,
  type CassetteHeader,
  type Exchange as CassetteExchange,
  readCassette,
} from "./cassette/format.js";
export { type Normalizer, VOLATILE_NORMALIZERS } from "./cassette/normalize.js";
export { type CassetteRecording, type RecordOptions, recordCassette } from "./cassette/record.js";
export { type CassetteReplay, type ReplayOptions, replayCassette } from "./cassette/replay.js";
export {
  REPLAY_MISSES,
  REPLAY_TIMINGS,
  type ReplayMiss,
  type ReplayTiming,
} from "./cassette/replay-modes.js";
export { classifyError, type Failure, isContextOverflow, isRetryable, retryAfterFrom } from "./errors.js";
export { AssistantMessageEventStream, EventStream } from "./event-stream.js";
export { extractJson, extractJsonCandidates } from "./extract-json.js";
export {
  type SchemaValidator,
  schemaValidator,
  type Validation,
  validateJson,
} from "./json-schema-validator.js";
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
export {
  MIN_SECRET_LENGTH,
  REDACTED,
  type RedactingStream,
  Redactor,
  type RedactorOptions,
  spellingsOf,
} from "./redactor.js";
export { prepareReplay } from "./replay.js";
export { backoffDelay, type RetryPolicy, retryPolicy } from "./retry.js";
export { complete, registeredApis, registerProvider, stream } from "./stream.js";
export {
  type StructuredAttempt,
  type StructuredAttemptInfo,
  type StructuredCallLevel,
  type StructuredCallOptions,
  type StructuredErrorReason,
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
