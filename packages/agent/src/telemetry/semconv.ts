// The OpenTelemetry GenAI semantic conventions' names tern emits (development status, as of the
// conventions' 2026 releases), and tern's own attributes under `tern.*`. One list, so the tracer,
// the tests and the READMEs agree on spelling.

import type { StopReason } from "@tern/ai";

export const GEN_AI = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  /** The older name of gen_ai.provider.name; still read by some backends (Langfuse, older Jaeger UIs). */
  system: "gen_ai.system",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationTokens: "gen_ai.usage.cache_creation.input_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  // Content: only with capture opted in.
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
} as const;

export const ERROR_TYPE = "error.type";

export const OPERATION = { agent: "invoke_agent", chat: "chat", tool: "execute_tool" } as const;

export const TERN = {
  runId: "tern.run.id",
  turn: "tern.turn",
  purpose: "tern.model_call.purpose",
  stopReason: "tern.stop_reason",
  iterations: "tern.iterations",
  costUsd: "tern.usage.cost_usd",
  stepId: "tern.plan.step_id",
  permission: "tern.tool.permission",
  // Span events.
  retry: "tern.model_retry",
  inject: "tern.inject",
  compactionStart: "tern.compaction_start",
  compactionEnd: "tern.compaction_end",
  error: "tern.error",
  phase: "tern.phase",
  plan: "tern.plan",
} as const;

/** tern's stop reasons in the conventions' finish-reason vocabulary. */
const FINISH_REASONS: Record<StopReason, string> = {
  stop: "stop",
  toolUse: "tool_call",
  length: "length",
  error: "error",
  aborted: "aborted",
};

export function finishReason(stopReason: StopReason): string {
  return FINISH_REASONS[stopReason] ?? stopReason;
}
