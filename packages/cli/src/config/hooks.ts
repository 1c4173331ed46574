// Hooks from settings: "hooks" in the user's $TERN_HOME/config.json and in the project's
// .tern/config.json (at the workspace root: the git root, or the cwd). Each is a shell command for
// an event, in Claude Code's shape or a flat one:
//   "hooks": { "PreToolUse": [ { "matcher": "bash", "hooks": [ { "type": "command", "command": "…", "timeout": 10 } ] } ] }
//   "hooks": { "PreToolUse": [ { "matcher": "bash", "command": "…", "timeout": 10 } ] }
// A project's hooks run commands, so they run only after the user approved them once for that
// project (`tern hooks approve`), remembered like project MCP servers (by project and by a hash
// of the hooks: an edit asks again). Bad entries are warnings, never a crash.
import { join } from "node:path";
import type { HookEventName, HookRegistry } from "@tern/agent";
import { FileApprovalStore } from "@tern/mcp";
import { type CommandHookOptions, type CommandHookSpec, commandHook } from "@tern/tools";
import { PROJECT_SETTINGS_FILE, PROJECT_SETTINGS_KEYS, readProjectSettings } from "./project-settings.js";

/** Where the approvals of project hooks are kept, in $TERN_HOME. */
export const HOOK_APPROVALS_FILE = "hook-approvals.json";
/** The approval store's key for a project's hooks (one approval covers the whole "hooks" object). */
const APPROVAL_KEY = "hooks";
const EVENTS: readonly HookEventName[] = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "Stop",
  "SessionStart",
];

export interface HookSetting {
  scope: "user" | "project";
  file: string;
  spec: CommandHookSpec;
}

export interface ProjectHooks {
  file: string;
  /** The "hooks" object as written (what an approval covers). */
  raw: object;
  hooks: HookSetting[];
  approved: boolean;
}

export interface HookSettings {
  /** The hooks that run: the user's, then the project's when approved. */
  active: HookSetting[];
  user: HookSetting[];
  project?: ProjectHooks;
  warnings: string[];
}

export function hookApprovals(home: string): FileApprovalStore {
  return new FileApprovalStore({ file: join(home, HOOK_APPROVALS_FILE) });
}

/** The user's hooks (from the parsed config.json) and the project's at `root`, with approval. */
export async function loadHookSettings(
  home: string,
  userHooks: unknown,
  userFile: string,
  root: string,
): Promise<HookSettings> {
  const warnings: string[] = [];
  const user = userHooks === undefined ? [] : parseHooks(userHooks, userFile, "user", warnings);
  const settings: HookSettings = { active: [...user], user, warnings };
  const file = join(root, PROJECT_SETTINGS_FILE);
  const raw = readProjectHooks(file, warnings);
  if (raw === undefined) return settings;
  const hooks = parseHooks(raw, file, "project", warnings);
  let approved = false;
  try {
    approved = await hookApprovals(home).isApproved(root, APPROVAL_KEY, raw);
  } catch (error) {
    warnings.push((error as Error).message);
  }
  settings.project = { file, raw, hooks, approved };
  if (approved) settings.active.push(...hooks);
  else if (hooks.length > 0)
    warnings.push(
      `${file}: ${hooks.length} project hook${hooks.length === 1 ? "" : "s"} not approved, so not run; review them (tern hooks) and approve with tern hooks approve`,
    );
  return settings;
}

/** Remembers the user's yes for the project's current hooks. */
export async function approveProjectHooks(home: string, root: string, project: ProjectHooks): Promise<void> {
  await hookApprovals(home).approve(root, APPROVAL_KEY, project.raw);
}

/** Registers each hook as a command hook confined like `bash`. */
export function installCommandHooks(
  registry: HookRegistry,
  hooks: readonly HookSetting[],
  options: CommandHookOptions,
): void {
  for (const hook of hooks) registry.register(commandHook(hook.spec, options));
}

function readProjectHooks(file: string, warnings: string[]): object | undefined {
  const raw = readProjectSettings(file, warnings);
  if (raw === undefined) return undefined;
  for (const key of Object.keys(raw)) {
    if (!PROJECT_SETTINGS_KEYS.includes(key))
      warnings.push(
        `${file}: "${key}" ignored (a project's settings hold ${PROJECT_SETTINGS_KEYS.join(", ")})`,
      );
  }
  if (raw.hooks === undefined || isObject(raw.hooks)) return raw.hooks as object | undefined;
  warnings.push(`${file}: "hooks" must be an object of hook lists by event; ignored`);
  return undefined;
}

/** The hooks of one settings file; each bad entry is a warning and is left out. */
export function parseHooks(
  raw: unknown,
  file: string,
  scope: HookSetting["scope"],
  warnings: string[],
): HookSetting[] {
  if (!isObject(raw)) {
    warnings.push(`${file}: "hooks" must be an object of hook lists by event; ignored`);
    return [];
  }
  const hooks: HookSetting[] = [];
  for (const [event, list] of Object.entries(raw)) {
    const where = `${file}: hooks.${event}`;
    if (!(EVENTS as readonly string[]).includes(event)) {
      warnings.push(`${where}: unknown event (known: ${EVENTS.join(", ")}); ignored`);
      continue;
    }
    if (!Array.isArray(list)) {
      warnings.push(`${where}: must be an array of hooks; ignored`);
      continue;
    }
    for (const [index, entry] of list.entries()) {
      const at = `${where}[${index}]`;
      if (!isObject(entry)) {
        warnings.push(`${at}: must be an object; ignored`);
        continue;
      }
      const matcher = entry.matcher;
      if (matcher !== undefined && typeof matcher !== "string") {
        warnings.push(`${at}: "matcher" must be a tool-name glob string; ignored`);
        continue;
      }
      const nested = Array.isArray(entry.hooks);
      const commands: unknown[] = nested ? (entry.hooks as unknown[]) : [entry];
      for (const [inner, command] of commands.entries()) {
        const spec = commandSpec(command, nested ? `${at}.hooks[${inner}]` : at, warnings);
        if (!spec) continue;
        spec.event = event as HookEventName;
        if (matcher !== undefined && matcher !== "" && matcher !== "*") spec.matcher = splitMatcher(matcher);
        hooks.push({ scope, file, spec });
      }
    }
  }
  return hooks;
}

function commandSpec(raw: unknown, at: string, warnings: string[]): CommandHookSpec | undefined {
  if (!isObject(raw)) {
    warnings.push(`${at}: must be an object with a "command"; ignored`);
    return undefined;
  }
  if (raw.type !== undefined && raw.type !== "command") {
    warnings.push(`${at}: only "type": "command" hooks are supported; ignored`);
    return undefined;
  }
  if (typeof raw.command !== "string" || raw.command.trim() === "") {
    warnings.push(`${at}: "command" must be a non-empty string; ignored`);
    return undefined;
  }
  const spec: CommandHookSpec = { event: "PreToolUse", command: raw.command };
  if (raw.timeout !== undefined) {
    if (typeof raw.timeout !== "number" || !(raw.timeout > 0)) {
      warnings.push(`${at}: "timeout" must be a positive number of seconds; ignored`);
      return undefined;
    }
    spec.timeoutMs = Math.round(raw.timeout * 1000);
  }
  return spec;
}

/** Claude Code's matchers may list tools with `|` ("edit|write"); ours take a list of globs. */
function splitMatcher(matcher: string): string[] {
  return matcher
    .split("|")
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
