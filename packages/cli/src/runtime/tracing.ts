// Tracing for `tern run`, `tern chat` and `tern serve`, switched on by the standard OpenTelemetry
// environment (an OTLP endpoint), so Jaeger, Tempo, Honeycomb or Langfuse receive the agent's
// spans with no tern-specific setup. The SDK is imported only when the environment asks for it:
// without an endpoint nothing is loaded and startup stays as fast as before.

import type { Tracing } from "./otel-sdk.js";

export type { Tracing };

const ENDPOINT_VARIABLES = ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"];

/** The OTLP protocols tern exports with; the specification's default is http/protobuf. */
export type OtlpProtocol = "http/protobuf" | "http/json";
const DEFAULT_PROTOCOL: OtlpProtocol = "http/protobuf";

export type TracingChoice =
  | { on: false }
  | { on: true; protocol: OtlpProtocol }
  | { on: false; problem: string };

/** Reads the environment: on when an endpoint is set, unless the SDK or the traces exporter is off. */
export function tracingChoice(env: NodeJS.ProcessEnv): TracingChoice {
  if (!ENDPOINT_VARIABLES.some((name) => env[name]?.trim())) return { on: false };
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return { on: false };
  const exporters = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporters === "none") return { on: false };
  if (exporters && !exporters.split(",").some((name) => name.trim() === "otlp")) {
    return {
      on: false,
      problem: `OTEL_TRACES_EXPORTER=${exporters} is not supported; tern exports only otlp`,
    };
  }
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)
    ?.trim()
    .toLowerCase();
  if (!protocol) return { on: true, protocol: DEFAULT_PROTOCOL };
  if (protocol === "http/protobuf" || protocol === "http/json") return { on: true, protocol };
  return {
    on: false,
    problem: `OTLP protocol "${protocol}" is not supported; set OTEL_EXPORTER_OTLP_PROTOCOL to http/protobuf or http/json`,
  };
}

/**
 * Starts the SDK when the environment asks for it; undefined otherwise. A configuration it cannot
 * use is a warning, never a failed command: tracing is an aid, not the work.
 */
export async function startTracing(
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): Promise<Tracing | undefined> {
  const choice = tracingChoice(env);
  if (!choice.on) {
    if ("problem" in choice) warn(`tracing is off: ${choice.problem}`);
    return undefined;
  }
  try {
    const { startSdk } = await import("./otel-sdk.js");
    return startSdk(choice.protocol, warn);
  } catch (error) {
    warn(`tracing is off: ${(error as Error)?.message ?? String(error)}`);
    return undefined;
  }
}
