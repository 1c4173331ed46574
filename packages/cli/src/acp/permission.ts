// The permission bridge: every question tern's permission layer asks becomes a
// `session/request_permission` to the editor, about the tool call the editor already shows.
// "Allow always" is offered when the policy has rules to suggest and answers like chat's "always":
// the policy adds those narrowest rules for the rest of the session. An editor that cancels the
// question, fails to answer, or picks an option it was not offered is a denial: a question is
// never answered yes by accident.
import type { AgentContext, PermissionOption } from "@agentclientprotocol/sdk";
import type { AskPermission, PermissionAnswer } from "@tern/tools";
import { toolKind } from "./updates.js";

const ALLOW_ONCE = "allow_once";
const ALLOW_ALWAYS = "allow_always";
const REJECT_ONCE = "reject_once";

export interface PermissionBridge {
  client: AgentContext;
  /** The ACP session the question belongs to. */
  sessionId: () => string;
  warn: (message: string) => void;
}

export function askThroughClient(bridge: PermissionBridge): AskPermission {
  return async (request): Promise<PermissionAnswer> => {
    const always = request.suggestedRules.join(", ");
    const options: PermissionOption[] = [
      { optionId: ALLOW_ONCE, name: "Allow", kind: "allow_once" },
      ...(always
        ? [{ optionId: ALLOW_ALWAYS, name: `Always allow ${always}`, kind: "allow_always" as const }]
        : []),
      { optionId: REJECT_ONCE, name: "Reject", kind: "reject_once" },
    ];
    try {
      const { outcome } = await bridge.client.request(
        "session/request_permission",
        {
          sessionId: bridge.sessionId(),
          toolCall: {
            toolCallId: request.toolCallId,
            title: request.summary,
            kind: toolKind(request.toolName),
            status: "pending",
            rawInput: request.args,
          },
          options,
        },
        { cancellationSignal: request.signal, stopWaitingOnCancel: true },
      );
      if (outcome.outcome === "cancelled")
        return { allow: false, reason: "the editor cancelled the question" };
      if (outcome.optionId === ALLOW_ONCE) return { allow: true };
      if (outcome.optionId === ALLOW_ALWAYS && always) return { allow: true, remember: true };
      if (outcome.optionId === REJECT_ONCE) return { allow: false, reason: "the user rejected this call" };
      return { allow: false, reason: `the editor answered with an unknown option "${outcome.optionId}"` };
    } catch (error) {
      if (request.signal.aborted) return { allow: false, reason: "the run was cancelled" };
      bridge.warn(`the permission question for ${request.summary} failed: ${(error as Error).message}`);
      return { allow: false, reason: "the editor did not answer the permission question" };
    }
  };
}
