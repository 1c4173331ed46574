// @tern/cli as a library: run a `tern` command in-process with your own streams and environment.
// Everything else (renderers, model choice, the coding agent) is the command's internals.
export { runCli } from "./app.js";
export type { ExitCode } from "./cli/errors.js";
export type { Io } from "./cli/io.js";
