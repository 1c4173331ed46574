// `tern run [PROMPT]`: one task; the answer on stdout, progress on stderr (or --json events).
import { resolve } from "node:path";
import { AGENT_OPTIONS, parseCommandArgs } from "../cli/args.js";
import { type ExitCode, UsageError } from "../cli/errors.js";
import { type Io, readAll } from "../cli/io.js";
import { helpFor, wantsHelp } from "../help.js";
import { RunSurface } from "../render/run-surface.js";
import { type PreparedPrompt, preparePrompt } from "../runtime/attach.js";
import { executeRun } from "../runtime/execute.js";
import { terminalMcpApprover } from "../runtime/mcp-ask.js";
import { openRuntime } from "../runtime/runtime.js";
import { CONTINUE_OPTION, withContinue } from "../runtime/session-ids.js";
import { terminalAsk } from "../runtime/terminal-ask.js";
import { commandContext } from "./shared.js";

export async function runCommand(argv: string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("run", argv, {
    ...AGENT_OPTIONS,
    json: { type: "boolean" },
    image: { type: "string", multiple: true },
    ...CONTINUE_OPTION,
  });
  if (wantsHelp(values, io, helpFor("run"))) return 0;
  const context = commandContext(values, io);
  const { style, warn } = context;
  const settings = await withContinue(values, context.settings, warn);
  const json = values.json === true;
  let prompt = positionals.join(" ").trim();
  const promptFromArgs = prompt !== "";
  if (!promptFromArgs && !io.stdin.isTTY) prompt = (await readAll(io.stdin)).trim();
  if (prompt === "")
    throw new UsageError('no prompt: pass it as an argument (tern run "fix the failing test") or on stdin');

  const surface = new RunSurface(io.stdout, io.stderr, style, !json);
  // A person at a terminal can answer permission questions; a pipe or --json cannot.
  const canAsk = promptFromArgs && !json && io.stdin.isTTY === true && io.stderr.isTTY === true;
  const runtime = await openRuntime({
    settings,
    env: io.env,
    warn,
    ...(canAsk
      ? {
          ask: terminalAsk(io.stdin, io.stderr, style, () => surface.status(undefined)),
          approveMcp: terminalMcpApprover(io.stdin, io.stderr, style),
        }
      : {}),
  });
  let prepared: PreparedPrompt;
  try {
    prepared = await preparePrompt(prompt, {
      cwd: runtime.cwd,
      model: runtime.model,
      mcp: runtime.mcp,
      // Flags name files relative to where the command runs; @path relative to the workspace.
      imageFiles: ((values.image as string[] | undefined) ?? []).map((file) => resolve(io.cwd, file)),
    });
  } catch (error) {
    await runtime.close();
    throw error;
  }
  for (const warning of prepared.warnings) warn(warning);
  const { code } = await executeRun({
    io,
    style,
    surface,
    runtime,
    json,
    start: async () => {
      // A plan's steps take the tools the agent has when it starts: let the MCP servers come up
      // first (a loop waits in its first turn instead). The strategy is the one the agent was built
      // with: a resumed session's recorded one when no flag overrides it.
      if ((runtime.coding.options.strategy ?? "loop") !== "loop") await runtime.mcp?.waitForStartup();
      return runtime.agent.prompt(prepared.text, { images: prepared.images });
    },
  });
  return code;
}
