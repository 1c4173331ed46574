// What a command hook said, as the hook registry's output for its event. The protocol (the one
// Claude Code users know): exit 0 with nothing on stdout is "no opinion"; exit 0 with a JSON object
// answers; exit 2 blocks with stderr as the reason; anything else is a failure. A bad answer
// throws, so the registry reports it like a crash (the caller decides fail-open or fail-closed).
import type { HookEventName, HookIO, ToolOutcome } from "@tern/agent";
import type { UserContent } from "@tern/ai";

/** The exit code that means "block", with stderr as the reason. */
export const BLOCK_EXIT_CODE = 2;

export interface HookProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

interface Answer {
  block?: string;
  args?: Record<string, unknown>;
  prompt?: string;
  additionalContext?: string;
}

type Output<E extends HookEventName> = HookIO[E]["output"] | undefined;

/** Turns a finished hook process into the registry's output for `event`; throws on a bad answer. */
export function hookOutput<E extends HookEventName>(
  event: E,
  result: HookProcessResult,
  input: HookIO[E]["input"],
): Output<E> {
  const answer = readAnswer(result);
  if (!answer) return undefined;
  const blocked = answer.block;
  switch (event) {
    case "PreToolUse":
      if (answer.prompt !== undefined || answer.additionalContext !== undefined)
        throw new Error('PreToolUse hooks answer with "decision", "reason" and "args" only');
      return {
        ...(blocked !== undefined ? { decision: "deny", reason: blocked } : {}),
        ...(answer.args ? { args: answer.args } : {}),
      } as Output<E>;
    case "PostToolUse":
    case "PostToolUseFailure": {
      if (answer.args || answer.prompt !== undefined)
        throw new Error(`${event} hooks answer with "decision", "reason" and "additionalContext" only`);
      if (blocked === undefined && answer.additionalContext === undefined) return undefined;
      const { result: outcome } = input as HookIO["PostToolUse"]["input"];
      return { result: amendResult(outcome, blocked, answer.additionalContext) } as Output<E>;
    }
    case "UserPromptSubmit":
      if (answer.args) throw new Error('UserPromptSubmit hooks cannot answer with "args"');
      return {
        ...(blocked !== undefined ? { decision: "block", reason: blocked } : {}),
        ...(answer.prompt !== undefined ? { prompt: answer.prompt } : {}),
        ...(answer.additionalContext !== undefined ? { additionalContext: answer.additionalContext } : {}),
      } as Output<E>;
    case "Stop":
      if (answer.args || answer.prompt !== undefined || answer.additionalContext !== undefined)
        throw new Error('Stop hooks answer with "decision" and "reason" only');
      return (blocked !== undefined ? { decision: "block", reason: blocked } : undefined) as Output<E>;
    case "SessionStart":
      if (answer.args || answer.prompt !== undefined || blocked !== undefined)
        throw new Error('SessionStart hooks answer with "additionalContext" only');
      return (
        answer.additionalContext !== undefined ? { additionalContext: answer.additionalContext } : undefined
      ) as Output<E>;
    default:
      return undefined;
  }
}

function readAnswer(result: HookProcessResult): Answer | undefined {
  const stderr = result.stderr.trim();
  if (result.code === BLOCK_EXIT_CODE)
    return { block: stderr || "blocked by a hook (exit 2, no reason given)" };
  if (result.code !== 0) {
    const how = result.code === null ? `was killed by ${result.signal}` : `exited with code ${result.code}`;
    throw new Error(`the hook command ${how}${stderr ? `: ${stderr}` : ""}`);
  }
  const stdout = result.stdout.trim();
  if (stdout === "") return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(stdout);
  } catch (error) {
    throw new Error(
      `the hook printed something that is not JSON (${(error as Error).message}): ${cut(stdout)}`,
    );
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new Error(`the hook must print a JSON object (got ${cut(stdout)})`);
  const { decision, reason, args, prompt, additionalContext, ...rest } = raw as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw new Error(
      `the hook's answer has unknown fields: ${unknown.join(", ")} (known: decision, reason, args, prompt, additionalContext)`,
    );
  if (decision !== undefined && decision !== "block" && decision !== "allow")
    throw new Error(`"decision" must be "block" or "allow" (got ${JSON.stringify(decision)})`);
  for (const [name, value] of Object.entries({ reason, prompt, additionalContext })) {
    if (value !== undefined && typeof value !== "string") throw new Error(`"${name}" must be a string`);
  }
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args)))
    throw new Error('"args" must be a JSON object (the tool\'s new arguments)');
  const answer: Answer = {};
  if (decision === "block")
    answer.block = (reason as string | undefined) || "blocked by a hook (no reason given)";
  if (args !== undefined) answer.args = args as Record<string, unknown>;
  if (prompt !== undefined) answer.prompt = prompt as string;
  if (additionalContext !== undefined) answer.additionalContext = additionalContext as string;
  return answer;
}

/** A tool result with the hook's block reason (an error now) and its added context. */
function amendResult(
  outcome: ToolOutcome,
  blocked: string | undefined,
  context: string | undefined,
): ToolOutcome {
  const extra: UserContent[] = [];
  if (blocked !== undefined) extra.push({ type: "text", text: `[blocked by a hook] ${blocked}` });
  if (context !== undefined) extra.push({ type: "text", text: context });
  return {
    ...outcome,
    content: [...outcome.content, ...extra],
    isError: outcome.isError || blocked !== undefined,
  };
}

const SHOWN_CHARS = 200;

function cut(text: string): string {
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}
