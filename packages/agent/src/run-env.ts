// The run environment: what every part of one run shares. Its `emit` is the run's one way out
// (it tallies usage and keeps a throwing consumer from breaking the run), then the clock, ids, the
// abort signal, the model seam with its options, the hooks and where their failures go. Made once
// per run by `runEnv` and passed down; each part names the fields it reads with `Pick<RunEnv, …>`,
// and what only one part needs (a batch's tools, a call's own signal) travels beside it.
//
// A nested run (a plan step, a sub-agent) gets an environment of its own whose sink forwards into
// its parent's `emit`: what it forwards is counted and traced by the parent, so it needs no tracer.

import { type StreamFunction, type StreamOptions, stream } from "@tern/ai";
import { type HookFailureReporter, type HookRegistry, hookFailureEvent } from "./hooks.js";
import { describeThrown } from "./tool-result.js";
import type { AgentEvent, AgentEventSink } from "./types.js";
import { UsageTally } from "./usage-tally.js";

export interface RunEnv {
  readonly emit: (event: AgentEvent) => Promise<void>;
  readonly now: () => number;
  readonly ids: () => string;
  readonly signal: AbortSignal;
  /** The plain model seam (auxiliary calls); loop turns go through the policies' adapters. */
  readonly streamFn: StreamFunction;
  readonly streamOptions: Omit<StreamOptions, "signal" | "reasoning">;
  readonly hooks: HookRegistry | undefined;
  /** Turns a hook failure into the one `error` event for it. */
  readonly reportHookFailure: HookFailureReporter;
  /** Every model call of the run so far, counted as `emit` sends its `model_call_end`. */
  readonly usage: UsageTally;
}

/** The parts a run's configuration may set; the rest has defaults. */
export interface RunEnvParts {
  now?: () => number;
  ids?: () => string;
  streamFn?: StreamFunction;
  streamOptions?: Omit<StreamOptions, "signal" | "reasoning">;
  hooks?: HookRegistry;
}

export const defaultIds = (): string => crypto.randomUUID();

const RESOLVED = Promise.resolve();

export function runEnv(sink: AgentEventSink, signal: AbortSignal, parts: RunEnvParts = {}): RunEnv {
  const usage = new UsageTally();
  let sinkFailed = false;
  // A throwing consumer must not break the run; it is told once.
  const onSinkError = (error: unknown): void => {
    if (sinkFailed) return;
    sinkFailed = true;
    try {
      void Promise.resolve(sink({ type: "error", source: "listener", message: describeThrown(error) })).catch(
        () => {},
      );
    } catch {
      // The consumer fails on every event; nothing more to tell it.
    }
  };
  const emit = (event: AgentEvent): Promise<void> => {
    usage.add(event);
    try {
      const pending = sink(event);
      return pending ? pending.then(undefined, onSinkError) : RESOLVED;
    } catch (error) {
      onSinkError(error);
      return RESOLVED;
    }
  };
  return {
    emit,
    now: parts.now ?? Date.now,
    ids: parts.ids ?? defaultIds,
    signal,
    streamFn: parts.streamFn ?? (stream as StreamFunction),
    streamOptions: parts.streamOptions ?? {},
    hooks: parts.hooks,
    reportHookFailure: (failure) => emit(hookFailureEvent(failure)),
    usage,
  };
}
