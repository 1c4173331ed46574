// The client's hook handlers (Copilot's `hooks.invoke`) as entries of the session's HookRegistry,
// so the loop runs them at the same points as its own hooks. Each entry asks the client attached
// at that moment and does nothing when it has no hooks. Copilot's input and output shapes are
// translated here; a malformed answer counts as no opinion.

import type { HookRegistry, ToolOutcome } from "@tern/agent";
import type { ClientHookType } from "../types.js";
import type { BridgeContext } from "./bridge.js";

type Output = Record<string, unknown> | undefined;

export function registerClientHooks(hooks: HookRegistry, ctx: BridgeContext): void {
  const call = async (hookType: ClientHookType, input: Record<string, unknown>): Promise<Output> => {
    const invoke = ctx.attachment()?.invokeHook;
    if (!invoke) return undefined;
    const output = await invoke(hookType, {
      sessionId: ctx.sessionId,
      timestamp: ctx.now(),
      cwd: ctx.cwd,
      ...input,
    });
    return typeof output === "object" && output !== null ? (output as Record<string, unknown>) : undefined;
  };
  const name = (hookType: string) => ({ name: `client:${hookType}` });

  hooks.on(
    "PreToolUse",
    async ({ toolName, args }) => {
      const out = await call("preToolUse", { toolName, toolArgs: args });
      if (!out) return undefined;
      const rewritten = isRecord(out.modifiedArgs) ? { args: out.modifiedArgs } : {};
      const reason = text(out.permissionDecisionReason);
      if (out.permissionDecision === "deny")
        return { decision: "deny", reason: reason ?? "denied by the client's preToolUse hook", ...rewritten };
      if (out.permissionDecision === "allow") return { decision: "allow", ...rewritten };
      return rewritten;
    },
    name("preToolUse"),
  );

  hooks.on(
    "PostToolUse",
    async ({ toolName, args, result }) => {
      const out = await call("postToolUse", { toolName, toolArgs: args, toolResult: toLlmResult(result) });
      if (!out) return undefined;
      const modified = isRecord(out.modifiedResult) ? out.modifiedResult : undefined;
      const base = modified
        ? { content: text(modified.textResultForLlm) ?? "", isError: modified.resultType !== "success" }
        : undefined;
      const extra = text(out.additionalContext);
      if (!base && !extra) return undefined;
      const current = base ?? { content: resultText(result), isError: result.isError };
      return { result: { ...current, content: extra ? `${current.content}\n\n${extra}` : current.content } };
    },
    name("postToolUse"),
  );

  hooks.on(
    "PostToolUseFailure",
    async ({ toolName, args, error, result }) => {
      const out = await call("postToolUseFailure", { toolName, toolArgs: args, error });
      const extra = text(out?.additionalContext);
      return extra ? { result: { content: `${resultText(result)}\n\n${extra}`, isError: true } } : undefined;
    },
    name("postToolUseFailure"),
  );

  hooks.on(
    "UserPromptSubmit",
    async ({ prompt }) => {
      const out = await call("userPromptSubmitted", { prompt });
      if (!out) return undefined;
      const modified = text(out.modifiedPrompt);
      const extra = text(out.additionalContext);
      return {
        ...(modified !== undefined ? { prompt: modified } : {}),
        ...(extra ? { additionalContext: extra } : {}),
      };
    },
    name("userPromptSubmitted"),
  );

  hooks.on(
    "SessionStart",
    async ({ source }) => {
      const out = await call("sessionStart", { source: source === "resume" ? "resume" : "new" });
      const extra = text(out?.additionalContext);
      return extra ? { additionalContext: extra } : undefined;
    },
    name("sessionStart"),
  );

  hooks.on(
    "Stop",
    async ({ stopHookActive }) => {
      const out = await call("agentStop", { stopReason: "end_turn", stopHookActive });
      if (out?.decision !== "block") return undefined;
      return { decision: "block", ...(text(out.reason) ? { reason: text(out.reason) } : {}) };
    },
    name("agentStop"),
  );
}

/** Hooks the client only hears about (errors, the session's end): no answer is awaited. */
export function notifyClientHook(
  ctx: BridgeContext,
  hookType: ClientHookType,
  input: Record<string, unknown>,
): void {
  const invoke = ctx.attachment()?.invokeHook;
  if (!invoke) return;
  void invoke(hookType, { sessionId: ctx.sessionId, timestamp: ctx.now(), cwd: ctx.cwd, ...input }).catch(
    () => {},
  );
}

function toLlmResult(result: ToolOutcome) {
  return { textResultForLlm: resultText(result), resultType: result.isError ? "failure" : "success" };
}

function resultText(result: ToolOutcome): string {
  let out = "";
  for (const part of result.content) if (part.type === "text") out += part.text;
  return out;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
