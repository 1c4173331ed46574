// `TERN_STARTUP_TRACE=1`: one stderr line per start-up milestone (entry reached, command module
// loaded, runtime open, first model call), each with the milliseconds since the process started,
// so where a command's first second goes can be read off a real run instead of guessed. Off, each
// call is one environment lookup. The entry (tern.js) and the command bundle each hold a copy of
// this module, which keeps no state.
import type { Agent } from "@tern/agent";

const TRACE_ENV = "TERN_STARTUP_TRACE";

function tracing(): boolean {
  return process.env[TRACE_ENV] === "1";
}

/** Writes `tern startup: <ms since the process started> ms <milestone>` when tracing is on. */
export function traceStartup(milestone: string): void {
  if (!tracing()) return;
  // Since the process started, so Node's own boot is included. process.uptime, not
  // performance.now(): node:perf_hooks is a dozen modules every start would load for nothing.
  process.stderr.write(`tern startup: ${(process.uptime() * 1000).toFixed(1)} ms ${milestone}\n`);
}

/** Traces `milestone` once `loading` (a command module's import) has resolved, and passes it on. */
export async function traceLoaded<T>(loading: Promise<T>, milestone: string): Promise<T> {
  const loaded = await loading;
  traceStartup(milestone);
  return loaded;
}

/** Traces the first `model_call_start` of `agent` (the first model request is about to go out). */
export function traceFirstModelCall(agent: Agent): void {
  if (!tracing()) return;
  const stop = agent.subscribe((event) => {
    if (event.type !== "model_call_start") return;
    stop();
    traceStartup("first model call");
  });
}
