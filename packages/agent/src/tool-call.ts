import type { ToolCall } from "@tern/ai";
import type { RunEnv } from "./run-env.js";
import { describeThrown, errorOutcome, normalizeToolResult } from "./tool-result.js";
import { validateArguments } from "./tool-schema.js";
import type { AgentEvent, AgentToolResult, AnyAgentTool, ToolBlock, ToolOutcome } from "./types.js";

/** What a call reads of its run. */
export type ToolCallEnv = Pick<RunEnv, "emit" | "hooks" | "reportHookFailure">;

/** What the batch gives each of its calls beside the run's environment. */
export interface ToolCallScope {
  /** The tools offered this turn: the only ones the call may reach. */
  tools: readonly AnyAgentTool[];
  /** The call's own signal, aborted with the run's. */
  signal: AbortSignal;
  /** True once the batch has given up on its calls (abort); late updates are dropped. */
  isClosed: () => boolean;
}

export interface ToolCallResult {
  outcome: ToolOutcome;
  /** A PreToolUse hook asked to end the run. */
  stopRun: boolean;
  /** A PreToolUse hook denied the call (telemetry records the decision). */
  blocked?: ToolBlock;
}

export function findTool(tools: readonly AnyAgentTool[], name: string): AnyAgentTool | undefined {
  for (const tool of tools) if (tool.name === name) return tool;
  return undefined;
}

/**
 * One call from lookup to post-hooks. Every failure becomes an error result the model can read;
 * nothing here throws. The model cannot reach `execute` without passing validation and hooks.
 */
export async function runToolCall(
  call: ToolCall,
  env: ToolCallEnv,
  scope: ToolCallScope,
): Promise<ToolCallResult> {
  const { signal, isClosed } = scope;
  const tool = findTool(scope.tools, call.name);
  if (!tool) return fail(unknownToolText(call.name, scope.tools));
  if (call.parseError) {
    return fail(
      `Could not read the arguments of tool "${call.name}": ${call.parseError}\nSend the arguments as one JSON object.`,
    );
  }
  let args = call.arguments;
  if (tool.prepareArguments) {
    try {
      // A copy: the assistant message in the transcript keeps what the model actually sent.
      args = await tool.prepareArguments(structuredClone(args));
    } catch (error) {
      return fail(`Preparing the arguments of tool "${call.name}" failed: ${describeThrown(error)}`);
    }
  }
  let validation = await validateArguments(tool, args);
  if (!validation.ok) return fail(validation.error);

  let stopRun = false;
  if (env.hooks && env.hooks.count("PreToolUse", call.name) > 0) {
    const decision = await env.hooks.runPreToolUse(
      { toolName: call.name, toolCallId: call.id, args: validation.value },
      env.reportHookFailure,
      signal,
    );
    if (decision.action === "deny") {
      return { ...fail(`Tool call "${call.name}" was denied: ${decision.reason}`), blocked: "denied" };
    }
    if (decision.action === "terminate") {
      stopRun = true;
      return {
        outcome: errorOutcome(`Tool call "${call.name}" was stopped: ${decision.reason}`, true),
        stopRun,
        blocked: "terminated",
      };
    }
    if (decision.argsRewritten) {
      validation = await validateArguments(tool, decision.args);
      if (!validation.ok) return fail(validation.error);
    }
  }

  const value = validation.value;
  let outcome: ToolOutcome;
  try {
    const raw = await tool.execute(value, {
      signal,
      toolCallId: call.id,
      onUpdate: (partial) => (isClosed() ? Promise.resolve() : env.emit(updateEvent(call, partial))),
      emit: (event) => (isClosed() ? Promise.resolve() : env.emit(event)),
    });
    outcome = normalizeToolResult(raw);
  } catch (error) {
    outcome = errorOutcome(describeThrown(error));
  }

  if (env.hooks) {
    const input = { toolName: call.name, toolCallId: call.id, args: value, result: outcome };
    if (!outcome.isError) {
      if (env.hooks.count("PostToolUse", call.name) > 0) {
        outcome = await env.hooks.runPostToolUse(input, env.reportHookFailure, signal);
      }
    } else if (env.hooks.count("PostToolUseFailure", call.name) > 0) {
      outcome = await env.hooks.runPostToolUseFailure(
        { ...input, error: outcomeText(outcome) },
        env.reportHookFailure,
        signal,
      );
    }
  }
  return { outcome, stopRun };
}

function updateEvent(call: ToolCall, partial: AgentToolResult | string): AgentEvent {
  return {
    type: "tool_execution_update",
    toolCallId: call.id,
    toolName: call.name,
    args: call.arguments,
    partialResult: normalizeToolResult(partial),
  };
}

function unknownToolText(name: string, tools: readonly AnyAgentTool[]): string {
  const available = tools.length === 0 ? "none" : tools.map((tool) => tool.name).join(", ");
  return `Tool "${name}" not found. Available tools: ${available}.`;
}

function outcomeText(outcome: ToolOutcome): string {
  let text = "";
  for (const part of outcome.content) if (part.type === "text") text += part.text;
  return text;
}

function fail(text: string): ToolCallResult {
  return { outcome: errorOutcome(text), stopRun: false };
}
