// The sandbox proxy's question about a host that is not in --allow-host, put to the run's
// permission asker (the terminal, or `tern chat`'s input line) as one more permission request.
// Only in mode "ask" with someone to ask; otherwise such hosts are refused.
import type { AskPermission, PermissionAnswer, PermissionMode, SandboxOptions } from "@tern/tools";

/** The sandbox options with `askHost` when the user may be asked. */
export function withHostQuestion(
  sandbox: SandboxOptions,
  mode: PermissionMode,
  ask: AskPermission | undefined,
): SandboxOptions {
  if (mode !== "ask" || ask === undefined) return sandbox;
  return { ...sandbox, askHost: hostQuestion(ask) };
}

export function hostQuestion(ask: AskPermission): NonNullable<SandboxOptions["askHost"]> {
  return async ({ host, port }, signal) => {
    const target = `${host.includes(":") ? `[${host}]` : host}:${port}`;
    const answer: PermissionAnswer = await ask({
      toolName: "network",
      toolCallId: `network:${target}`,
      args: { host: target },
      kind: "exec",
      mode: "ask",
      summary: `network: connect to ${target} for the rest of the session (not in --allow-host)`,
      // "Always" would mean config.json's allowHosts, which the user edits; not offered here.
      suggestedRules: [],
      // Aborts when the command has ended: a question nobody needs any more is withdrawn.
      signal,
    });
    return typeof answer === "boolean" ? answer : answer.allow;
  };
}
