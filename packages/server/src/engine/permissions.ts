// Permission requests reach the client. One PreToolUse hook, last in line (it judges the
// arguments other hooks produced): a client tool is asked about unless the client does not take
// permission requests or the tool skips them; a server tool goes through @tern/tools' policy,
// whose questions become permission requests too.

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
}

/** Publishes a permission request and waits for the client; a denial when nobody can answer. */
export async function askClient(
  ctx: BridgeContext,
  question: Question,
  signal: AbortSignal,
): Promise<PermissionAnswer> {
  if (!ctx.attachment()?.requestPermission) {
    return { allow: false, reason: "no connected client answers permission requests" };
  }
  const requestId = ctx.newId();
  ctx.publish({ type: "permission_request", requestId, ...question });
  const outcome = await ctx.pending.wait<PermissionAnswer>(requestId, signal);
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
      },
      request.signal,
    );
    return answer.reason === undefined ? answer.allow : { allow: answer.allow, reason: answer.reason };
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
