// The permission policy: deny rules, then the mode, then allow rules and read-only commands, then
// the user. It decides one call at a time; hook.ts puts it in front of every tool call.

import type { AnyAgentTool } from "@tern/agent";
import type { ToolKind } from "../types.js";
import type { Workspace } from "../workspace.js";
import { describeCall, suggestRules } from "./describe.js";
import { readOnlyCommand } from "./read-only.js";
import { CompiledRule, isCommandTool, toRule } from "./rules.js";
import { analyzeCommand } from "./shell.js";
import type {
  AskPermission,
  PermissionAnswer,
  PermissionCheck,
  PermissionDecision,
  PermissionMode,
  PermissionOptions,
  PermissionRule,
} from "./types.js";
import { PERMISSION_MODES } from "./types.js";

const BUILTIN_KINDS: Record<string, ToolKind> = {
  read: "read",
  ls: "read",
  glob: "read",
  grep: "read",
  write: "write",
  edit: "write",
  bash: "exec",
};

export interface CallInput {
  toolName: string;
  toolCallId?: string;
  args: Record<string, unknown>;
}

export class PermissionPolicy {
  private currentMode: PermissionMode;
  private readonly allowRules: CompiledRule[] = [];
  private readonly denyRules: CompiledRule[] = [];
  private readonly askUser: AskPermission | undefined;
  private readonly kinds: Map<string, ToolKind>;
  /** Kinds given by name in the options: they win over every tool's own. */
  private readonly overrides: Map<string, ToolKind>;
  private readonly currentTools: (() => readonly AnyAgentTool[]) | undefined;
  private readonly root: string | undefined;
  /** Names of the run's tools, when known: denial reasons list only tools that exist. */
  private readonly available: Set<string> | undefined;
  // One question at a time: parallel tool calls must not open several prompts at once.
  private asking: Promise<unknown> = Promise.resolve();

  /** Throws on an unknown mode or a malformed rule (configuration errors). */
  constructor(options: PermissionOptions = {}) {
    this.currentMode = checkMode(options.mode ?? "ask");
    this.askUser = options.ask;
    this.root = options.root;
    this.kinds = new Map(Object.entries(BUILTIN_KINDS));
    this.available = options.tools ? new Set(options.tools.map((tool) => tool.name)) : undefined;
    const workspaces = new Set<Workspace>();
    for (const tool of options.tools ?? []) {
      const { kind, workspace } = tool as AnyAgentTool & { kind?: ToolKind; workspace?: Workspace };
      if (kind) this.kinds.set(tool.name, kind);
      if (workspace) workspaces.add(workspace);
    }
    // A deny rule on reading a path also keeps grep and glob from showing that file.
    for (const workspace of workspaces)
      workspace.hideFromReads((abs) => this.denyRules.some((rule) => rule.hidesFromReads(abs)));
    this.overrides = new Map(Object.entries(options.kinds ?? {}));
    for (const [name, kind] of this.overrides) this.kinds.set(name, kind);
    this.currentTools = options.currentTools;
    for (const rule of options.allow ?? []) this.allow(rule);
    for (const rule of options.deny ?? []) this.deny(rule);
  }

  get mode(): PermissionMode {
    return this.currentMode;
  }

  setMode(mode: PermissionMode): void {
    this.currentMode = checkMode(mode);
  }

  allow(rule: string | PermissionRule): void {
    this.allowRules.push(new CompiledRule(toRule(rule), this.root));
  }

  deny(rule: string | PermissionRule): void {
    this.denyRules.push(new CompiledRule(toRule(rule), this.root));
  }

  get rules(): { allow: string[]; deny: string[] } {
    return { allow: this.allowRules.map((r) => r.text), deny: this.denyRules.map((r) => r.text) };
  }

  kindOf(toolName: string): ToolKind {
    const override = this.overrides.get(toolName);
    if (override) return override;
    const live = this.currentTools?.().find((tool) => tool.name === toolName) as
      | (AnyAgentTool & { kind?: ToolKind })
      | undefined;
    return live?.kind ?? this.kinds.get(toolName) ?? "exec";
  }

  /** Decides without asking anyone: allowed, denied, or needs the user. */
  check(call: CallInput): PermissionCheck {
    const verdicts = this.denyRules.map((rule) => ({ rule, match: rule.denies(call) }));
    const deny = verdicts.find((v) => v.match === "yes")?.rule;
    if (deny) {
      return {
        allow: false,
        by: "deny-rule",
        rule: deny.text,
        reason: `the permission rule "${deny.text}" denies it. Do not retry it; find another way or ask the user.`,
      };
    }
    const mode = this.currentMode;
    const kind = this.kindOf(call.toolName);
    // A deny rule that cannot tell (the command runs something only the run knows) asks, in every mode.
    const unsure = verdicts.find((v) => v.match === "maybe")?.rule;
    if (unsure && mode !== "read-only") return this.askRequest(call, kind, unsure.text);
    if (mode === "bypass")
      return { allow: true, by: "mode", reason: 'permission mode "bypass" allows every tool' };
    if (kind === "read") return { allow: true, by: "mode", reason: `${call.toolName} only reads` };
    if (mode === "read-only") {
      return {
        allow: false,
        by: "mode",
        reason: `the session is in read-only mode, so only tools that read (${this.readTools().join(", ")}) may run. Do not retry; tell the user what you would change instead.`,
      };
    }
    const allowing = CompiledRule.allowing(this.allowRules, call);
    if (allowing) {
      const texts = allowing.map((rule) => rule.text);
      return {
        allow: true,
        by: "allow-rule",
        rule: texts.join(", "),
        reason: `allowed by ${texts.join(", ")}`,
      };
    }
    if (mode === "accept-edits" && kind === "write") {
      return { allow: true, by: "mode", reason: 'permission mode "accept-edits" allows file edits' };
    }
    if (isCommandTool(call.toolName) && readOnlyCommand(String(call.args.command ?? "")).readOnly)
      return { allow: true, by: "mode", reason: "read-only command" };
    return this.askRequest(call, kind);
  }

  private askRequest(call: CallInput, kind: ToolKind, unsureRule?: string): PermissionCheck {
    const summary = describeCall(call.toolName, call.args, this.root);
    const shell = unsureRule ? analyzeCommand(String(call.args.command ?? "")) : undefined;
    const why = shell ? [...shell.unresolved, ...shell.hidden].slice(0, 3) : [];
    return {
      ...(unsureRule
        ? { unsure: `the rule "${unsureRule}" cannot tell what this command runs: ${why.join("; ")}` }
        : {}),
      ask: true,
      request: {
        toolName: call.toolName,
        args: call.args,
        kind,
        mode: this.currentMode,
        summary: unsureRule
          ? `${summary} (the rule "${unsureRule}" cannot tell what this runs without running it)`
          : summary,
        // "Always allow" must not turn an unsure deny into an allow rule that outranks nothing.
        suggestedRules: unsureRule ? [] : suggestRules(call.toolName, call.args, this.root),
      },
    };
  }

  /** Decides, asking the user when the rules and the mode leave it open. Never throws. */
  async decide(
    call: CallInput,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<PermissionDecision> {
    const first = this.check(call);
    if (!("ask" in first)) return first;
    if (!this.askUser) return this.noTerminal(call, first.unsure);
    const ask = this.askUser;
    const turn = this.asking.then(async (): Promise<PermissionDecision> => {
      // An earlier answer may have added a rule that settles this call.
      const again = this.check(call);
      if (!("ask" in again)) return again;
      if (signal.aborted)
        return { allow: false, by: "user", reason: "the run was aborted before the user answered" };
      let answer: PermissionAnswer;
      try {
        answer = await ask({ ...again.request, toolCallId: call.toolCallId ?? "", signal });
      } catch (error) {
        return {
          allow: false,
          by: "user",
          reason: `asking the user failed (${(error as Error)?.message ?? String(error)}), so the call is denied`,
        };
      }
      return this.applyAnswer(answer, again.request.suggestedRules);
    });
    this.asking = turn.catch(() => {});
    return turn;
  }

  private applyAnswer(answer: PermissionAnswer, suggested: string[]): PermissionDecision {
    const normalized = typeof answer === "boolean" ? { allow: answer } : answer;
    if (normalized.allow) {
      if (normalized.remember) for (const rule of suggested) this.allow(rule);
      return { allow: true, by: "user", reason: normalized.reason ?? "the user allowed it" };
    }
    const why = normalized.reason ? `: ${normalized.reason}` : "";
    return {
      allow: false,
      by: "user",
      reason: `the user said no${why}. Do not retry it; ask the user how to proceed if you need it.`,
    };
  }

  private noTerminal(call: CallInput, unsure: string | undefined): PermissionDecision {
    if (unsure) {
      return {
        allow: false,
        by: "no-terminal",
        reason: `${unsure}, and tern runs without a terminal to ask, so it was denied. Do not retry it as is; write the command so every program it runs is named literally, without eval or variables as command names.`,
      };
    }
    const allowed = [...this.readTools(), ...this.allowRules.map((rule) => rule.text)];
    if (this.currentMode === "accept-edits") allowed.push(...this.toolsOfKind("write"));
    if (this.kindOf("bash") === "exec" && (!this.available || this.available.has("bash")))
      allowed.push("read-only bash commands");
    const list = allowed.length > 0 ? unique(allowed).join(", ") : "nothing";
    // What would allow it comes first: displays cut long reasons short, and this is what the user needs.
    const rules = suggestRules(call.toolName, call.args, this.root);
    const rule =
      rules.length > 0 ? rules.map((r) => `--allow-tool '${r}'`).join(" ") : "--allow-tool or --mode";
    return {
      allow: false,
      by: "no-terminal",
      reason:
        `${call.toolName} needs the user's permission (allow it with ${rule}); tern runs without a terminal to ask (permission mode "${this.currentMode}"), so it was denied. ` +
        `Do not retry it; use an allowed tool, or finish and tell the user what you need and why. Allowed without asking: ${list}.`,
    };
  }

  private readTools(): string[] {
    return this.toolsOfKind("read");
  }

  private toolsOfKind(kind: ToolKind): string[] {
    const known = [...this.kinds]
      .filter(([name, k]) => k === kind && (!this.available || this.available.has(name)))
      .map(([name]) => name);
    const live = (this.currentTools?.() ?? [])
      .filter((tool) => this.kindOf(tool.name) === kind)
      .map((tool) => tool.name);
    return unique([...known, ...live]);
  }
}

function checkMode(mode: string): PermissionMode {
  if ((PERMISSION_MODES as readonly string[]).includes(mode)) return mode as PermissionMode;
  throw new Error(`Unknown permission mode "${mode}"; use one of ${PERMISSION_MODES.join(", ")}.`);
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}
