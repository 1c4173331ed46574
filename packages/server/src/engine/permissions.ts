// Permission requests reach the client: the one broker behind every protocol. A question is a
// `permission_request` event (an SSE `permission` frame, a Copilot `permission.requested`); the
// answer comes back through ServerSession.answerPermission from whichever protocol has it (the
// attached JSON-RPC client, or an HTTP POST), and an unanswered question is denied after the
// timeout, saying so. One PreToolUse hook, last in line (it judges the arguments other hooks
// produced): a client tool is asked about unless the client does not take permission requests
// or the tool skips them; a server tool goes through @tern/tools' policy, whose questions become
// permission requests too.

import type { HookDefinition } from "@tern/agent";
import { PERMISSION_HOOK_PRIORITY, type PermissionPolicy, type PermissionRequest } from "@tern/tools";
import type { ClientToolSpec, PermissionAnswer, PermissionKind } from "../types.js";
import type { BridgeContext } from "./bridge.js";

/** Asking takes a person's time: no hook timeout. */
const NO_TIMEOUT_MS = 2_147_483_647;

interface Question {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  kind: PermissionKind;
  summary: string;
  toolDescription: string;
  suggestedRules?: string[];
}

/** Publishes a permission request and waits for the client; a denial when nobody can answer. */
export async function askClient(
  ctx: BridgeContext,
  question: Question,
  signal: AbortSignal,
): Promise<PermissionAnswer> {
  // A JSON-RPC client that said it answers no questions; without one, HTTP clients may answer.
  const attached = ctx.attachment();
  if (attached && !attached.requestPermission) {
    return { allow: false, reason: "the connected client does not answer permission requests" };
  }
  const requestId = ctx.newId();
  const timeoutMs = ctx.permissionTimeoutMs;
  ctx.publish({ type: "permission_request", requestId, ...question, expiresAt: ctx.now() + timeoutMs });
  const outcome = await ctx.pending.wait<PermissionAnswer>(requestId, signal, {
    ms: timeoutMs,
    reason: `nobody answered the permission question within ${Math.round(timeoutMs / 1000)} s, so it was denied`,
  });
  const answer: PermissionAnswer = outcome.ok ? outcome.value : { allow: false, reason: outcome.reason };
  ctx.publish({
    type: "permission_result",
    requestId,
    toolCallId: question.toolCallId,
    allow: answer.allow,
    ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
  });
  return answer;
}

/** The policy's `ask`: its question, as a permission request to the client. */
export function policyAsker(ctx: BridgeContext, describe: (toolName: string) => string) {
  return async (request: PermissionRequest) => {
    const answer = await askClient(
      ctx,
      {
        toolCallId: request.toolCallId,
        toolName: request.toolName,
        args: request.args,
        kind: permissionKind(request.toolName, request.kind),
        summary: request.summary,
        toolDescription: describe(request.toolName),
        suggestedRules: request.suggestedRules,
      },
      request.signal,
    );
    return {
      allow: answer.allow,
      ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
      ...(answer.remember && request.suggestedRules.length > 0 ? { remember: true } : {}),
    };
  };
}

export function permissionHook(
  ctx: BridgeContext,
  clientTools: () => ReadonlyMap<string, ClientToolSpec>,
  policy: PermissionPolicy | undefined,
): HookDefinition<"PreToolUse"> {
  return {
    event: "PreToolUse",
    name: "permissions",
    priority: PERMISSION_HOOK_PRIORITY,
    timeoutMs: NO_TIMEOUT_MS,
    failClosed: true,
    handler: async (input, { signal }) => {
      const spec = clientTools().get(input.toolName);
      if (spec) {
        if (spec.skipPermission || !ctx.attachment()?.requestPermission) return undefined;
        const answer = await askClient(
          ctx,
          {
            toolCallId: input.toolCallId,
            toolName: input.toolName,
            args: input.args,
            kind: "custom-tool",
            summary: `${input.toolName}: ${JSON.stringify(input.args)}`,
            toolDescription: spec.description ?? "",
          },
          signal,
        );
        return answer.allow
          ? { decision: "allow" }
          : { decision: "deny", reason: answer.reason ?? "the user denied it" };
      }
      if (!policy) return undefined;
      const decision = await policy.decide(input, signal);
      return decision.allow ? { decision: "allow" } : { decision: "deny", reason: decision.reason };
    },
  };
}

function permissionKind(toolName: string, kind: PermissionRequest["kind"]): PermissionKind {
  if (kind === "read") return "read";
  if (kind === "write") return "write";
  return toolName === "bash" ? "shell" : "custom-tool";
}
