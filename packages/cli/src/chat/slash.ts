// Slash commands of `tern chat`: /model /compact /plan /sessions /resume /fork /tools /mode /help
// /exit.
import type { RunStrategy } from "@tern/agent";
import { PERMISSION_MODES, type PermissionMode } from "@tern/tools";
import { chooseModel, ensureApiKey, isKnownProvider, modelLabel } from "../config/model.js";
import { ago, formatCost, oneLine, padEnd } from "../render/format.js";
import type { Style } from "../render/style.js";
import type { Runtime } from "../runtime/runtime.js";
import { resolveStoreSessionId } from "../runtime/session-ids.js";

export interface SlashContext {
  runtime: Runtime;
  style: Style;
  env: NodeJS.ProcessEnv;
  home: string;
  configPath: string;
  busy: boolean;
  print(text: string): void;
  /** Closes the current session and continues in another one. */
  switchSession(id: string, how: "resume" | "fork"): Promise<void>;
  /** Sends a prompt with its own strategy (/plan). */
  prompt(text: string, strategy: RunStrategy): void;
  exit(): void;
}

export const SLASH_HELP = [
  "/model [provider/]ID   switch the model (no argument: show it)",
  "/compact [hint]        summarise older messages to free context",
  "/plan TASK             run TASK as a plan: steps in parallel, analysed, replanned if needed",
  "/sessions              sessions of this directory",
  "/resume ID             continue another session",
  "/fork [ENTRY]          branch this session into a new one (at an entry id from tern sessions show)",
  "/tools                 tools and what the permission policy lets them do",
  "/mode MODE             permission mode: ask, accept-edits, read-only, bypass",
  "/exit                  leave (Ctrl-C twice or Ctrl-D also do)",
  "keys: Enter sends; while the agent works Enter steers and Alt+Enter queues a follow-up; Ctrl-C aborts",
];

const WHILE_BUSY = new Set(["/exit", "/quit", "/help", "/tools", "/sessions"]);

/** Runs one slash command line. Unknown commands are reported, never sent to the model. */
export async function runSlash(line: string, ctx: SlashContext): Promise<void> {
  const [name = "", ...rest] = line.trim().split(/\s+/);
  const arg = rest.join(" ");
  const { style, print } = ctx;
  if (ctx.busy && !WHILE_BUSY.has(name)) {
    print(style.yellow(`${name} waits until the agent is idle (Ctrl-C aborts the turn)`));
    return;
  }
  switch (name) {
    case "/help":
      for (const text of SLASH_HELP) print(style.dim(text));
      return;
    case "/exit":
    case "/quit":
      ctx.exit();
      return;
    case "/model":
      return switchModel(arg, ctx);
    case "/compact":
      return compact(arg, ctx);
    case "/plan":
      if (!arg) return print(style.yellow("usage: /plan TASK"));
      return ctx.prompt(arg, "plan");
    case "/sessions":
      return listSessions(ctx);
    case "/resume":
      if (!arg) return print(style.yellow("usage: /resume ID (see /sessions)"));
      return ctx.switchSession(await resolveStoreSessionId(ctx.runtime.store, ctx.home, arg), "resume");
    case "/fork":
      return ctx.switchSession(arg, "fork");
    case "/tools":
      return listTools(ctx);
    case "/mode":
      if (!(PERMISSION_MODES as readonly string[]).includes(arg))
        return print(
          style.yellow(`usage: /mode ${PERMISSION_MODES.join("|")} (now: ${ctx.runtime.permissions.mode})`),
        );
      ctx.runtime.permissions.setMode(arg as PermissionMode);
      return print(style.dim(`permission mode → ${arg}`));
    default:
      print(style.yellow(`unknown command ${name}; /help lists them`));
  }
}

async function switchModel(arg: string, ctx: SlashContext): Promise<void> {
  const { runtime, style, print } = ctx;
  const current = runtime.agent.state.model;
  if (!arg) {
    print(
      `model: ${modelLabel(current)} ${style.dim("(/model provider/id to switch; tern models lists them)")}`,
    );
    return;
  }
  const parts = arg.split(/\s+/);
  const slash = arg.indexOf("/");
  let provider = current.provider;
  let id = arg;
  if (parts.length >= 2) [provider, id] = [parts[0]!, parts[1]!];
  else if (slash > 0 && isKnownProvider(runtime.registry, arg.slice(0, slash)))
    [provider, id] = [arg.slice(0, slash), arg.slice(slash + 1)];
  else {
    // A catalogued id of another provider ("/model gpt-5" while on a local server) means that provider.
    const matches = runtime.registry.list().filter((model) => model.id === arg);
    if (matches.length === 1 && !runtime.registry.get(current.provider, arg)) provider = matches[0]!.provider;
  }
  // A base URL belongs to the provider it was given for.
  const baseUrl = provider === current.provider ? current.baseUrl : undefined;
  const model = chooseModel(
    runtime.registry,
    { provider, model: id, ...(baseUrl ? { baseUrl } : {}) },
    ctx.env,
    ctx.configPath,
  );
  runtime.session.addSecrets(await ensureApiKey(model, undefined));
  runtime.agent.setModel(model);
  print(style.dim(`model → ${modelLabel(model)}`));
}

async function compact(hint: string, ctx: SlashContext): Promise<void> {
  const agent = ctx.runtime.agent;
  const before = agent.state.messages;
  if (before.length === 0) return ctx.print(ctx.style.dim("nothing to compact yet"));
  // The agent's compaction events draw the progress line.
  await agent.compact(hint || undefined);
}

async function listSessions(ctx: SlashContext): Promise<void> {
  const { runtime, style, print } = ctx;
  const sessions = await runtime.store.list({ cwd: runtime.cwd });
  if (sessions.length === 0) return print(style.dim("no sessions for this directory"));
  for (const s of sessions.slice(0, 15)) {
    const mark = s.id === runtime.session.id ? style.green("*") : " ";
    print(
      `${mark} ${padEnd(s.id.slice(0, 8), 10)}${padEnd(ago(s.updated), 10)}${padEnd(formatCost(s.cost), 9)}${oneLine(s.title || "(empty)", 60)}`,
    );
  }
  if (sessions.length > 15) print(style.dim(`… ${sessions.length - 15} more (tern sessions ls)`));
}

function listTools(ctx: SlashContext): void {
  const { runtime, style, print } = ctx;
  const policy = runtime.permissions;
  print(style.dim(`permission mode ${policy.mode}`));
  for (const tool of runtime.tools) {
    const check = policy.check({ toolName: tool.name, args: {} });
    const verdict = "ask" in check ? "asks" : check.allow ? "runs" : "denied";
    print(
      `  ${padEnd(tool.name, 7)} ${padEnd(tool.kind, 6)} ${verdict === "runs" ? style.green(verdict) : verdict === "asks" ? style.yellow(verdict) : style.red(verdict)}  ${style.dim(oneLine(tool.description, 70))}`,
    );
  }
  const { allow, deny } = policy.rules;
  if (allow.length > 0) print(style.dim(`  allow: ${allow.join(", ")}`));
  if (deny.length > 0) print(style.dim(`  deny: ${deny.join(", ")}`));
}
