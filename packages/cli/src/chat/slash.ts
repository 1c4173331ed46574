// Slash commands of `tern chat`: /model /compact /plan /clear /new /sessions /resume /fork /rewind
// /tools /skills /mcp /context /mode /help /exit, then the MCP servers' prompts (./mcp-prompts.ts)
// and the custom commands (./custom-commands.ts).
import type { RunStrategy } from "@tern/agent";
import { PERMISSION_MODES, type PermissionMode } from "@tern/tools";
import { chooseModel, ensureApiKey, isKnownProvider, modelLabel } from "../config/model.js";
import { ago, formatCost, oneLine, padEnd } from "../render/format.js";
import { instructionLabels } from "../render/instructions.js";
import { mcpStatusLines } from "../render/mcp-status.js";
import { skillLines } from "../render/skills.js";
import type { Style } from "../render/style.js";
import type { Runtime } from "../runtime/runtime.js";
import { resolveStoreSessionId } from "../runtime/session-ids.js";
import { expandCommand, loadCustomCommands } from "./custom-commands.js";
import { mcpPromptHelp, runMcpPrompt } from "./mcp-prompts.js";
import { rewindCommand } from "./rewind-command.js";

export interface SlashContext {
  runtime: Runtime;
  style: Style;
  env: NodeJS.ProcessEnv;
  home: string;
  configPath: string;
  busy: boolean;
  print(text: string): void;
  /** Closes the current session and continues in another one. */
  switchSession(id: string, how: "resume" | "fork" | "new"): Promise<void>;
  clearScreen(): void;
  /** Prints the header again (after a clear). */
  banner(): void;
  /** Sends a prompt, with its own strategy for /plan; `literal` text attaches no `@` mentions. */
  prompt(text: string, strategy?: RunStrategy, literal?: boolean): void;
  exit(): void;
  /** Puts text in the input line for the person to edit and send. */
  setInput(text: string): void;
}

export const SLASH_HELP = [
  "/model [provider/]ID   switch the model (no argument: show it)",
  "/compact [hint]        summarise older messages to free context",
  "/plan TASK             run TASK as a plan: steps in parallel, analysed, replanned if needed",
  "/clear                 clear the screen and start the conversation afresh (same session, a new branch)",
  "/new                   start a new session (this one stays saved)",
  "/sessions              sessions of this directory",
  "/resume ID             continue another session",
  "/fork [ENTRY]          branch this session into a new one (at an entry id from tern sessions show)",
  "/rewind [N] [code|conversation|both] [force]  back to before turn N (no N: list the turns)",
  "/tools                 tools and what the permission policy lets them do",
  "/context               the instruction files (AGENTS.md...) in the system prompt",
  "/skills                the Agent Skills the model may use, their files and status",
  "/mcp [retry NAME]      MCP servers: state, tools; retry a failed one",
  "/mode MODE             permission mode: ask, accept-edits, read-only, bypass",
  "/exit                  leave (Ctrl-C twice or Ctrl-D also do)",
  "keys: Enter sends; Alt+Enter (or Shift+Enter where the terminal reports it) starts a new line;",
  "  while the agent works Enter steers (read after the current tool calls) and Tab queues a follow-up",
  "  (read when it would stop); @path attaches a file, Tab completes it; @SERVER:URI attaches an MCP",
  "  server's resource; Ctrl-C aborts, twice exits",
];

export const CLEAR_ENTRY_TYPE = "clear";

const WHILE_BUSY = new Set(["/exit", "/quit", "/help", "/tools", "/sessions", "/context", "/mcp", "/skills"]);

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
      return help(ctx);
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
    case "/new":
      return ctx.switchSession("", "new");
    case "/clear":
      return clear(ctx);
    case "/resume":
      if (!arg) return print(style.yellow("usage: /resume ID (see /sessions)"));
      return ctx.switchSession(await resolveStoreSessionId(ctx.runtime.store, ctx.home, arg), "resume");
    case "/fork":
      return ctx.switchSession(arg, "fork");
    case "/tools":
      return listTools(ctx);
    case "/context":
      return listContext(ctx);
    case "/skills":
      for (const text of skillLines(ctx.runtime.coding.skills, ctx.style)) ctx.print(text);
      return;
    case "/mcp":
      return mcpServers(arg, ctx);
    case "/rewind":
      return rewindCommand(arg, ctx);
    case "/mode":
      if (!(PERMISSION_MODES as readonly string[]).includes(arg))
        return print(
          style.yellow(`usage: /mode ${PERMISSION_MODES.join("|")} (now: ${ctx.runtime.permissions.mode})`),
        );
      ctx.runtime.permissions.setMode(arg as PermissionMode);
      return print(style.dim(`permission mode → ${arg}`));
    default: {
      // The line as typed after the name: an MCP prompt's quoted arguments keep their spaces.
      const typed = line.trim().slice(name.length).trim();
      if (await runMcpPrompt(name.slice(1), typed, ctx)) return;
      const custom = customCommands(ctx).commands.get(name.slice(1));
      if (custom) return ctx.prompt(expandCommand(custom, arg));
      print(style.yellow(`unknown command ${name}; /help lists them`));
    }
  }
}

/** Every built-in command name (a custom command cannot take one). */
const BUILT_IN = new Set(
  SLASH_HELP.filter((line) => line.startsWith("/"))
    .map((line) => line.split(/\s/)[0]!)
    .concat(["/quit", "/help"]),
);

function customCommands(ctx: SlashContext) {
  return loadCustomCommands(ctx.runtime.cwd, ctx.home, BUILT_IN);
}

function help(ctx: SlashContext): void {
  const { style, print } = ctx;
  for (const text of SLASH_HELP) print(style.dim(text));
  const { commands, warnings } = customCommands(ctx);
  if (commands.size > 0) {
    print(style.dim("custom commands (.tern/commands/*.md, $TERN_HOME/commands/*.md; $ARGUMENTS, $1…$9):"));
    for (const command of commands.values())
      print(style.dim(`/${padEnd(command.name, 22)}${oneLine(command.description, 70)}`));
  }
  for (const warning of warnings) print(style.yellow(`warning: ${warning}`));
  for (const text of mcpPromptHelp(ctx.runtime.mcp)) print(style.dim(text));
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
  runtime.session.addSecrets(await ensureApiKey(model, undefined, ctx.env));
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

/** Empties the conversation: the leaf goes back to the root, so the old turns stay as a branch. */
async function clear(ctx: SlashContext): Promise<void> {
  const { session, agent } = ctx.runtime;
  const from = session.leafId;
  session.branch(null);
  session.appendCustom(CLEAR_ENTRY_TYPE, { fromLeafId: from });
  await session.flush();
  agent.replaceMessages([]);
  ctx.clearScreen();
  ctx.banner();
  ctx.print(ctx.style.dim("conversation cleared (the earlier turns stay in the session's history)"));
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
    // The policy's kind, not the tool's own field: a tool from elsewhere may not carry one.
    const kind = policy.kindOf(tool.name);
    const verdict = "ask" in check ? "asks" : check.allow ? "runs" : "denied";
    print(
      `  ${padEnd(tool.name, 7)} ${padEnd(kind, 6)} ${verdict === "runs" ? style.green(verdict) : verdict === "asks" ? style.yellow(verdict) : style.red(verdict)}  ${style.dim(oneLine(tool.description, 70))}`,
    );
  }
  const { allow, deny } = policy.rules;
  if (allow.length > 0) print(style.dim(`  allow: ${allow.join(", ")}`));
  if (deny.length > 0) print(style.dim(`  deny: ${deny.join(", ")}`));
}

function listContext(ctx: SlashContext): void {
  const { runtime, style, print } = ctx;
  const { instructions } = runtime;
  const labels = instructionLabels(instructions, runtime.cwd);
  if (labels.length === 0)
    print(style.dim("no instruction files loaded (AGENTS.md, CLAUDE.md, .github/copilot-instructions.md)"));
  else print(style.dim(`instructions, in prompt order (the later wins), from root ${instructions.root}:`));
  instructions.files.forEach((file, index) => {
    print(`  ${labels[index]}  ${style.dim(`${file.scope}, ${file.bytes} bytes`)}`);
  });
  for (const warning of instructions.warnings) print(style.yellow(`  ${warning}`));
}

function mcpServers(arg: string, ctx: SlashContext): void {
  const { runtime, style, print } = ctx;
  const mcp = runtime.mcp;
  const retry = /^retry\s+(\S+)$/.exec(arg)?.[1];
  if (!mcp)
    print(style.dim("no MCP servers (.mcp.json, $TERN_HOME/mcp.json, --mcp-config; tern mcp --help)"));
  else if (retry !== undefined && !mcp.status().some((s) => s.name === retry))
    print(style.yellow(`no MCP server "${retry}"; /mcp lists them`));
  else if (retry !== undefined) {
    mcp.retry(retry);
    print(style.dim(`retrying ${retry}; its tools join the next turn when it is up`));
  } else if (arg) print(style.yellow("usage: /mcp, or /mcp retry NAME"));
  else for (const line of mcpStatusLines(mcp.status(), style)) print(line);
}
