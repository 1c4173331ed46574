export { MAX_CONTENT_CHARS } from "./content.js";
export {
  CAPTURE_CONTENT_ENV,
  captureContentFromEnv,
  DEFAULT_AGENT_NAME,
  type TelemetryOptions,
  TRACER_NAME,
} from "./options.js";
export { RunTracer } from "./run-tracer.js";
export { ERROR_TYPE, GEN_AI, OPERATION, TERN } from "./semconv.js";
export { tracedRun } from "./traced-run.js";
