// Where the CLI maps environment variables onto library options. The libraries read no
// environment (API keys from their standard variables excepted, `@tern/ai`'s api-keys.ts): the
// host decides, and here the host is the CLI. Every host in it gets these through the coding-agent
// factory (runtime/coding-agent.ts: run, chat, sessions resume, acp, mcp serve, serve, cluster
// workers, demo --web) or, for graphile-worker's log, the cluster command. The one table of every
// variable the CLI reads is in packages/cli/README.md ("Environment variables").
import type { StreamOptions } from "@tern/ai";
import type { GraphileErrorListener } from "@tern/cluster";
import { DEFAULT_INSTRUCTIONS_MAX_BYTES, type InstructionOptions } from "@tern/tools";
import { nonEmpty } from "./values.js";

/** Where models without a baseUrl of their own are sent, by wire API (a proxy, a gateway). */
export function baseUrlsFrom(env: NodeJS.ProcessEnv): StreamOptions["baseUrls"] {
  const openai = nonEmpty(env.OPENAI_BASE_URL);
  const anthropic = nonEmpty(env.ANTHROPIC_BASE_URL);
  return {
    ...(openai !== undefined ? { "openai-completions": openai, "openai-responses": openai } : {}),
    ...(anthropic !== undefined ? { "anthropic-messages": anthropic } : {}),
  };
}

/** Overrides DEFAULT_INSTRUCTIONS_MAX_BYTES (a positive whole number of bytes). */
export const INSTRUCTIONS_MAX_BYTES_ENV = "TERN_INSTRUCTIONS_MAX_BYTES";

/**
 * loadInstructions' cap, and a warning for a value that is not a positive whole number (the
 * default then applies, as for any other odd instruction setting: a warning, never a failure).
 */
export function instructionsCapFrom(env: NodeJS.ProcessEnv): {
  cap: Pick<InstructionOptions, "maxBytes" | "maxBytesSetting">;
  warning?: string;
} {
  const cap = { maxBytesSetting: INSTRUCTIONS_MAX_BYTES_ENV };
  const text = nonEmpty(env[INSTRUCTIONS_MAX_BYTES_ENV]?.trim());
  if (text === undefined) return { cap };
  const value = Number(text);
  if (Number.isInteger(value) && value > 0) return { cap: { ...cap, maxBytes: value } };
  return {
    cap,
    warning: `${INSTRUCTIONS_MAX_BYTES_ENV} must be a positive whole number of bytes (got ${JSON.stringify(text)}); using ${DEFAULT_INSTRUCTIONS_MAX_BYTES}`,
  };
}

/** tern's own switch, then the one the OpenTelemetry GenAI instrumentations share. */
export const CAPTURE_CONTENT_ENV = [
  "TERN_OTEL_CAPTURE_CONTENT",
  "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
] as const;

const TRUE_VALUES = new Set(["1", "true", "yes", "on"]);

/** `telemetry.captureContent`: true when either variable says so; tern's own wins when both are set. */
export function captureContentFrom(env: NodeJS.ProcessEnv): boolean {
  for (const name of CAPTURE_CONTENT_ENV) {
    const value = env[name]?.trim().toLowerCase();
    if (value) return TRUE_VALUES.has(value);
  }
  return false;
}

/** graphile-worker's error lines go to `write` (stderr) only when TERN_CLUSTER_DEBUG is set. */
export function graphileErrorsFrom(
  env: NodeJS.ProcessEnv,
  write: (text: string) => void,
): GraphileErrorListener | undefined {
  if (nonEmpty(env.TERN_CLUSTER_DEBUG) === undefined) return undefined;
  return (message) => write(`graphile: ${message}\n`);
}
