// @tern/cli as a library: run the command in-process, or reuse its renderers for your own UI.
export { runCli } from "./app.js";
export { CliError, type ExitCode, UsageError } from "./cli/errors.js";
export type { Io } from "./cli/io.js";
export { chooseModel, createRegistry, ensureApiKey, type ModelChoice } from "./config/model.js";
export { eventJson } from "./render/json-events.js";
export { ProgressRenderer, type RendererOptions } from "./render/progress.js";
export { RunSurface } from "./render/run-surface.js";
export { colorEnabled, createStyle, type Style } from "./render/style.js";
export type { Surface } from "./render/surface.js";
export { describeCall, describeOutcome } from "./render/tool-lines.js";
export { VERSION } from "./version.js";
