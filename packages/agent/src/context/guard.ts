// The context guard as a loop policy: before every model call it keeps the context inside the
// model's budget (micro-compaction, then compaction); when a provider still answers "context too
// long" it compacts hard and retries that turn once.
import { type AssistantMessage, isContextOverflow } from "@tern/ai";
import type { LoopPolicy, PolicyRun } from "../policy.js";
import type { AgentMessage } from "../types.js";
import { type CompactionReason, type CompactionResult, compactContext, type Summariser } from "./compact.js";
import type { ContextGuardOptions } from "./options.js";

export const CONTEXT_GUARD = "context-guard";

export interface ContextGuardPolicy extends LoopPolicy {
  /** The options it was made with (the Agent's on-demand `compact()` uses them too). */
  readonly options: ContextGuardOptions;
}

export function isContextGuard(policy: LoopPolicy): policy is ContextGuardPolicy {
  return policy.name === CONTEXT_GUARD && "options" in policy;
}

/** Compacts `run`'s context now and installs the result. */
async function compactRun(
  run: PolicyRun,
  reason: CompactionReason,
  options: ContextGuardOptions,
  hint?: string,
  messages: readonly AgentMessage[] = run.messages,
): Promise<CompactionResult> {
  const summarise: Summariser = (context, model, callOptions) =>
    run.callModel(context, "compaction", { ...callOptions, model });
  const result = await compactContext({
    messages: messages as AgentMessage[],
    model: run.model,
    systemPrompt: run.systemPrompt,
    tools: run.tools,
    reason,
    hint,
    options,
    maxTokens: run.streamOptions.maxTokens,
    summarise,
    emit: run.emit,
    now: run.now,
  });
  if (result.messages !== run.messages) await run.replaceMessages(result.messages.slice());
  return result;
}

export function contextGuard(options: ContextGuardOptions = {}): ContextGuardPolicy {
  return {
    name: CONTEXT_GUARD,
    options,
    start() {
      /** The turn whose overflow was recovered from; an overflow on the next turn ends the run. */
      let recoveredTurn: number | undefined;
      return {
        async beforeModelCall(run) {
          await compactRun(run, "threshold", options);
        },
        async onModelError(run, message) {
          if (!isContextOverflow(message)) return undefined;
          if (recoveredTurn !== undefined && recoveredTurn === run.turn - 1) {
            await giveUp(run, message);
            return { retry: false };
          }
          // The failed reply carries nothing; leaving it would end the context with an assistant turn.
          const messages = withoutFailed(run.messages, message);
          await compactRun(run, "overflow", options, undefined, messages);
          recoveredTurn = run.turn;
          return { retry: true };
        },
      };
    },
  };
}

function withoutFailed(messages: readonly AgentMessage[], failed: AssistantMessage): readonly AgentMessage[] {
  const last = messages[messages.length - 1];
  if (last !== failed || failed.content.length > 0) return messages;
  return messages.slice(0, -1);
}

async function giveUp(run: PolicyRun, message: AssistantMessage): Promise<void> {
  await run.emit({
    type: "error",
    source: "policy",
    message: `Context overflow: ${run.model.provider}/${run.model.id} rejected the context as too long again after compacting it; the run ends. Provider said: ${message.errorMessage ?? "context too long"}`,
  });
}
