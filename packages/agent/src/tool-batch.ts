import type { ToolCall, ToolResultMessage } from "@tern/ai";
import { ABORTED_TOOL_TEXT } from "./aborted-tool.js";
import type { RunEnv } from "./run-env.js";
import { findTool, runToolCall } from "./tool-call.js";
import { describeThrown, errorOutcome, toolResultMessage } from "./tool-result.js";
import type { AgentEvent, AnyAgentTool, ToolBlock, ToolExecutionConfig, ToolOutcome } from "./types.js";

export const TRUNCATED_CALL_TEXT =
  "This tool call was not executed: the response hit the output token limit before the call was complete. " +
  "Call the tool again with shorter arguments, or split the work into smaller calls.";

/** What a batch reads of its run. */
export type BatchEnv = Pick<RunEnv, "emit" | "now" | "signal" | "hooks" | "reportHookFailure">;

/** The batch's own part: the tools offered this turn and how to run them. */
export interface BatchSpec {
  tools: readonly AnyAgentTool[];
  config: ToolExecutionConfig | undefined;
}

export interface BatchResult {
  /** One result per call, in call order. */
  results: ToolResultMessage[];
  /** Every result asked to terminate. */
  terminate: boolean;
  /** A PreToolUse hook asked to end the run. */
  stoppedByHook: boolean;
}

/**
 * Runs the tool calls of one assistant message. Parallel unless configured sequential or any
 * tool of the batch asks for it; `tool_execution_end` follows completion order, results follow
 * call order. On abort the batch stops waiting: calls without a result get an "aborted" one.
 */
export async function executeToolBatch(
  calls: readonly ToolCall[],
  env: BatchEnv,
  spec: BatchSpec,
): Promise<BatchResult> {
  const count = calls.length;
  const outcomes: (ToolOutcome | undefined)[] = new Array(count);
  const startedAt: (number | undefined)[] = new Array(count);
  let stoppedByHook = false;
  let closed = false;
  const isClosed = () => closed;

  // Each call gets its own signal, aborted with the run's. Calls in flight would otherwise each add
  // listeners (hooks, the tool itself) to the one run signal, and Node warns past ten of them.
  const inFlight = new Set<AbortController>();
  const abortCalls = () => {
    for (const controller of inFlight) controller.abort(env.signal.reason);
  };
  env.signal.addEventListener("abort", abortCalls, { once: true });

  const runOne = async (index: number) => {
    const call = calls[index]!;
    const controller = new AbortController();
    inFlight.add(controller);
    startedAt[index] = env.now();
    await env.emit({
      type: "tool_execution_start",
      toolCallId: call.id,
      toolName: call.name,
      args: call.arguments,
    });
    let outcome: ToolOutcome;
    let blocked: ToolBlock | undefined;
    try {
      const result = await runToolCall(call, env, { tools: spec.tools, signal: controller.signal, isClosed });
      outcome = result.outcome;
      blocked = result.blocked;
      if (result.stopRun) stoppedByHook = true;
    } catch (error) {
      outcome = errorOutcome(describeThrown(error));
    } finally {
      inFlight.delete(controller);
    }
    if (closed) return; // the abort path already answered this call
    outcomes[index] = outcome;
    await emitEnd(env, call, outcome, startedAt[index]!, blocked);
  };

  let next = 0;
  const worker = async () => {
    while (!closed && !env.signal.aborted && next < count) await runOne(next++);
  };
  const limit = isSequential(calls, spec)
    ? 1
    : Math.max(1, Math.min(spec.config?.concurrency ?? count, count));
  const workers: Promise<void>[] = [];
  for (let i = 0; i < limit; i++) workers.push(worker());
  await untilDoneOrAborted(Promise.all(workers), env.signal);
  env.signal.removeEventListener("abort", abortCalls);
  closed = true;

  const results: ToolResultMessage[] = new Array(count);
  let terminate = count > 0;
  for (let index = 0; index < count; index++) {
    const call = calls[index]!;
    let outcome = outcomes[index];
    if (!outcome) {
      outcome = errorOutcome(ABORTED_TOOL_TEXT);
      // Close the call for listeners that saw it start.
      if (startedAt[index] !== undefined) await emitEnd(env, call, outcome, startedAt[index]!);
    }
    if (!outcome.terminate) terminate = false;
    results[index] = toolResultMessage(call.id, call.name, outcome, env.now());
  }
  return { results, terminate, stoppedByHook };
}

/** Error results for calls that will not run (output cut at the token limit, failed or aborted model call). */
export function unexecutedResults(
  calls: readonly ToolCall[],
  text: string,
  now: number,
): ToolResultMessage[] {
  return calls.map((call) => toolResultMessage(call.id, call.name, errorOutcome(text), now));
}

function isSequential(calls: readonly ToolCall[], spec: BatchSpec): boolean {
  if (spec.config?.mode === "sequential") return true;
  for (const call of calls) if (findTool(spec.tools, call.name)?.executionMode === "sequential") return true;
  return false;
}

function emitEnd(
  env: BatchEnv,
  call: ToolCall,
  outcome: ToolOutcome,
  startedAt: number,
  blocked?: ToolBlock,
): Promise<void> {
  const event: AgentEvent = {
    type: "tool_execution_end",
    toolCallId: call.id,
    toolName: call.name,
    result: outcome,
    isError: outcome.isError,
    durationMs: env.now() - startedAt,
  };
  if (blocked) event.blocked = blocked;
  return env.emit(event);
}

function untilDoneOrAborted(done: Promise<unknown>, signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([done, aborted]).finally(() => signal.removeEventListener("abort", onAbort!));
}
