// Public contracts of the permission layer.

import type { AnyAgentTool } from "@tern/agent";
import type { ToolKind } from "../types.js";

/**
 * - `ask`: read tools run; write and exec tools need an allow rule or the user's yes (default).
 * - `accept-edits`: read and write tools run; exec tools need an allow rule or the user's yes.
 * - `read-only`: only read tools run, whatever the allow rules say.
 * - `bypass`: everything runs (deny rules still apply).
 */
export type PermissionMode = "ask" | "accept-edits" | "read-only" | "bypass";

export const PERMISSION_MODES: readonly PermissionMode[] = ["ask", "accept-edits", "read-only", "bypass"];

/**
 * A rule names tools by a glob (`*`, `?`; case-insensitive) and optionally an argument pattern:
 * for `bash` a command pattern (`npm test` exact, `npm test:*` the command and anything after a
 * space, `*` any text), for file tools a path glob (picomatch; no "/" = file name at any depth).
 * String form: `bash`, `bash(npm test:*)`, `write(src/**)`, `mcp__*`.
 */
export interface PermissionRule {
  tool: string;
  pattern?: string;
}

export interface PermissionRequest {
  toolName: string;
  toolCallId: string;
  args: Record<string, unknown>;
  kind: ToolKind;
  mode: PermissionMode;
  /** One readable line for the prompt, e.g. "bash: npm test". */
  summary: string;
  /** Rules that would allow calls like this one, for an "always allow" answer. */
  suggestedRules: string[];
  /** Aborts when the run is aborted: stop asking. */
  signal: AbortSignal;
}

/** `true`/`false`, or an answer with a reason for the model and "remember" (add the suggested rules). */
export type PermissionAnswer = boolean | { allow: boolean; reason?: string; remember?: boolean };

export type AskPermission = (request: PermissionRequest) => PermissionAnswer | Promise<PermissionAnswer>;

export interface PermissionOptions {
  /** Default "ask". */
  mode?: PermissionMode;
  allow?: readonly (string | PermissionRule)[];
  deny?: readonly (string | PermissionRule)[];
  /** Asks the user. Without it, a call that needs asking is denied and the model is told why. */
  ask?: AskPermission;
  /** The tools of the run: a built-in tool's `kind` is read from it. */
  tools?: readonly AnyAgentTool[];
  /**
   * The tools of the run as they are now, read at every check: tools that arrive after the policy
   * is built (an MCP server that came up late or sent tools/list_changed) are judged by their own
   * `kind`, not as unknown "exec" tools. Their kinds win over `tools`' and the built-in ones.
   */
  currentTools?: () => readonly AnyAgentTool[];
  /** Kinds by tool name (override). Tools of unknown kind count as "exec": the safe assumption. */
  kinds?: Record<string, ToolKind>;
  /** Workspace root, so path rules see root-relative paths even when the model sends absolute ones. */
  root?: string;
}

export interface PermissionDecision {
  allow: boolean;
  /** Why, written for the model (denials) and logs. */
  reason: string;
  /** What decided: a deny or allow rule, the mode, or the user. */
  by: "deny-rule" | "allow-rule" | "mode" | "user" | "no-terminal";
  /** The rule that decided, in string form. */
  rule?: string;
}

/** Answer without asking: allowed, denied, or a question for the user. */
export type PermissionCheck =
  | PermissionDecision
  | {
      ask: true;
      request: Omit<PermissionRequest, "signal" | "toolCallId">;
      /** Set when a deny rule could not tell what a bash command runs: why, for the model. */
      unsure?: string;
    };
