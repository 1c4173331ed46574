// How a run is traced: on by default (the API is a no-op until the host installs an SDK; the cost
// is in bench/telemetry.bench.ts), off with `telemetry: false`. Message content (prompts, answers,
// tool arguments and results) is recorded only when the caller opts in (the CLI: by environment).

import { type Tracer, trace } from "@opentelemetry/api";

export interface TelemetryOptions {
  /** Record prompts, answers, tool arguments and results on the spans. Default off (the CLI reads CAPTURE_CONTENT_ENV). */
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

/** tern's own switch, then the one the OpenTelemetry GenAI instrumentations share. */
export const CAPTURE_CONTENT_ENV = [
  "TERN_OTEL_CAPTURE_CONTENT",
  "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
];

const TRUE_VALUES = new Set(["1", "true", "yes", "on"]);

/** True when either variable says so; tern's own wins when both are set. */
export function captureContentFromEnv(env: NodeJS.ProcessEnv): boolean {
  for (const name of CAPTURE_CONTENT_ENV) {
    const value = env[name]?.trim().toLowerCase();
    if (value) return TRUE_VALUES.has(value);
  }
  return false;
}

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
