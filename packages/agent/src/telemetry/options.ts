// How a run is traced: on by default (the API is a no-op until the host installs an SDK; the cost
// is in bench/telemetry.bench.ts), off with `telemetry: false`. Message content (prompts, answers,
// tool arguments and results) is recorded only when the caller opts in with `captureContent`; the
// library reads no environment (the CLI maps its variables onto the option).

import { type Tracer, trace } from "@opentelemetry/api";

export interface TelemetryOptions {
  /** Record prompts, answers, tool arguments and results on the spans. Default off. */
  captureContent?: boolean;
  /** `gen_ai.agent.name` and the `invoke_agent` span's name. Default "tern". */
  agentName?: string;
  /** `gen_ai.conversation.id`. Default: `streamOptions.sessionId`. */
  conversationId?: string;
  /** Default: the global tracer provider's tracer for @tern/agent. */
  tracer?: Tracer;
  /**
   * Applied to every text the spans carry that a model, a provider or a tool wrote (error
   * messages, and content when captured), to remove secrets. Session agents pass the session's
   * redactor. Default: none.
   */
  redact?: (text: string) => string;
}

export const TRACER_NAME = "@tern/agent";
export const DEFAULT_AGENT_NAME = "tern";

const unchanged = (text: string) => text;

export interface ResolvedTelemetry {
  tracer: Tracer;
  captureContent: boolean;
  agentName: string;
  conversationId: string | undefined;
  redact: (text: string) => string;
}

export function resolveTelemetry(
  options: TelemetryOptions | false | undefined,
  sessionId: string | undefined,
): ResolvedTelemetry | undefined {
  if (options === false) return undefined;
  return {
    tracer: options?.tracer ?? trace.getTracer(TRACER_NAME),
    captureContent: options?.captureContent ?? false,
    agentName: options?.agentName ?? DEFAULT_AGENT_NAME,
    conversationId: options?.conversationId ?? sessionId,
    redact: options?.redact ?? unchanged,
  };
}
