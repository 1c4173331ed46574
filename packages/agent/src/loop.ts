import { emptyUsage } from "@tern/ai";
import { AgentEventStream } from "./event-stream.js";
import { Run } from "./run.js";
import { runEnv } from "./run-env.js";
import { tracedRun } from "./telemetry/traced-run.js";
import { describeThrown } from "./tool-result.js";
import type { AgentContext, AgentEventSink, AgentLoopConfig, AgentMessage, AgentRunResult } from "./types.js";

/**
 * Starts a run with new prompts. Returns the event stream at once; the run's outcome is
 * `result()`. Never rejects: failures end the run with stop reason "error" or "aborted".
 */
export function agentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  signal?: AbortSignal,
): AgentEventStream {
  const events = new AgentEventStream();
  runAgentLoop(prompts, context, config, (event) => events.push(event), signal).then(
    (result) => events.end(result),
    // Unreachable unless an injected clock or id generator throws; the stream must still end.
    (error: unknown) => events.end(crashed(error)),
  );
  return events;
}

/**
 * Resumes from the context as it is (after tool results, a crash repair, or queued messages).
 * Throws at once when there is nothing to continue from.
 */
export function agentLoopContinue(
  context: AgentContext,
  config: AgentLoopConfig,
  signal?: AbortSignal,
): AgentEventStream {
  assertContinuable(context);
  return agentLoop([], context, config, signal);
}

/** The callback form: every event goes to `emit`, whose promise is awaited. */
export function runAgentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal?: AbortSignal,
): Promise<AgentRunResult> {
  // The tracer sits in front of `emit`; the run below it is traced by what it emits, like a nested one.
  return tracedRun(config, emit, (traced) => runNestedLoop(prompts, context, config, traced, signal));
}

/**
 * A loop run inside another run (a plan step, a sub-agent): `emit` forwards into the parent's
 * stream, where the parent's tracer and usage tally see what it passes on, so this run opens no
 * trace of its own (`config.telemetry` is not read). Its spans are the parent's children.
 */
export function runNestedLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal: AbortSignal = new AbortController().signal,
): Promise<AgentRunResult> {
  return new Run(context, config, runEnv(emit, signal, config)).run(prompts);
}

export function runAgentLoopContinue(
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal?: AbortSignal,
): Promise<AgentRunResult> {
  assertContinuable(context);
  return runAgentLoop([], context, config, emit, signal);
}

export function assertContinuable(context: AgentContext): void {
  const last = context.messages[context.messages.length - 1];
  if (last === undefined) {
    throw new Error(
      "agentLoopContinue: the context has no messages; start the run with agentLoop(prompts, ...)",
    );
  }
  if ((last as { role?: unknown }).role === "assistant") {
    throw new Error(
      "agentLoopContinue: the last message is an assistant message, so there is nothing to answer; " +
        "add a user message (agentLoop) or tool results first",
    );
  }
}

function crashed(error: unknown): AgentRunResult {
  return {
    messages: [],
    answer: "",
    usage: emptyUsage(),
    iterations: 0,
    elapsedMs: 0,
    stopReason: "error",
    errorMessage: describeThrown(error),
  };
}
