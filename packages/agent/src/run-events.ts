// The run's one way out: every event passes through `send`, which sums usage from `model_call_end`
// (so auxiliary calls add up too) and keeps a throwing consumer from breaking the run.

import { addUsageInto, emptyUsage, type Usage } from "@tern/ai";
import type { HookFailureReporter } from "./hooks.js";
import { describeThrown } from "./tool-result.js";
import type { AgentEvent, AgentEventSink } from "./types.js";

const RESOLVED = Promise.resolve();

export class RunEvents {
  readonly usage: Usage = emptyUsage();
  private sinkFailed = false;

  constructor(private readonly sink: AgentEventSink) {}

  readonly send = (event: AgentEvent): Promise<void> => {
    if (event.type === "model_call_end") addUsageInto(this.usage, event.usage);
    try {
      const pending = this.sink(event);
      return pending ? pending.then(undefined, this.onSinkError) : RESOLVED;
    } catch (error) {
      this.onSinkError(error);
      return RESOLVED;
    }
  };

  readonly reportHookFailure: HookFailureReporter = (failure) => {
    const event: AgentEvent = {
      type: "error",
      source: "hook",
      message: `${failure.event} hook "${failure.hookName}" failed${failure.failClosed ? " (fail-closed)" : ""}: ${failure.message}`,
      hookEvent: failure.event,
      hookName: failure.hookName,
    };
    if (failure.toolCallId !== undefined) event.toolCallId = failure.toolCallId;
    return this.send(event);
  };

  /** A throwing consumer must not break the run; it is told once. */
  private readonly onSinkError = (error: unknown): void => {
    if (this.sinkFailed) return;
    this.sinkFailed = true;
    try {
      void Promise.resolve(
        this.sink({ type: "error", source: "listener", message: describeThrown(error) }),
      ).catch(() => {});
    } catch {
      // The consumer fails on every event; nothing more to tell it.
    }
  };
}
