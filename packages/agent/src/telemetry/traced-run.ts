// The one place a run gets its tracer: wraps the run's event sink so the tracer sees every event
// before the consumer does (a consumer that throws or stops reading changes nothing), and closes
// the spans however the run ends. A run whose span does not record (no SDK installed, or the
// sampler dropped it) is not observed at all.

import { context } from "@opentelemetry/api";
import type { Model } from "@tern/ai";
import type { AgentEventSink, AgentRunResult } from "../types.js";
import { resolveTelemetry, type TelemetryOptions } from "./options.js";
import { RunTracer } from "./run-tracer.js";

export interface TracedRunConfig {
  model: Model;
  telemetry?: TelemetryOptions | false;
  streamOptions?: { sessionId?: string };
}

export async function tracedRun(
  config: TracedRunConfig,
  emit: AgentEventSink,
  run: (emit: AgentEventSink) => Promise<AgentRunResult>,
): Promise<AgentRunResult> {
  const telemetry = resolveTelemetry(config.telemetry, config.streamOptions?.sessionId);
  if (!telemetry) return run(emit);
  const tracer = new RunTracer(telemetry, config.model);
  if (!tracer.recording) {
    // No SDK (or sampled out): nothing would be kept, so the run pays for nothing more.
    tracer.close();
    return run(emit);
  }
  const sink: AgentEventSink = (event) => {
    tracer.observe(event);
    return emit(event);
  };
  try {
    // Active while the run goes on: with a context manager installed (sdk-trace-node's), what
    // tools and providers trace on their own (HTTP, databases) lands inside the run's span.
    const result = await context.with(tracer.runContext, () => run(sink));
    tracer.close();
    return result;
  } catch (error) {
    tracer.close(error);
    throw error;
  }
}
