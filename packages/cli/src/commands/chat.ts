// `tern chat`: interactive on a terminal; with stdin not a terminal, each input line is one prompt
// (run in order), which keeps chat scriptable.
import { createInterface } from "node:readline";
import { ChatApp } from "../chat/chat-app.js";
import { AGENT_OPTIONS, parseCommandArgs } from "../cli/args.js";
import { type ExitCode, errorText } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { hasPrice } from "../config/model.js";
import { helpFor, wantsHelp } from "../help.js";
import { ProgressRenderer } from "../render/progress.js";
import { RunSurface } from "../render/run-surface.js";
import { type PreparedPrompt, preparePrompt } from "../runtime/attach.js";
import { explainFailure } from "../runtime/failure.js";
import { openRuntime } from "../runtime/runtime.js";
import { CONTINUE_OPTION, withContinue } from "../runtime/session-ids.js";
import { commandContext } from "./shared.js";

export async function chatCommand(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parseCommandArgs("chat", argv, { ...AGENT_OPTIONS, ...CONTINUE_OPTION }, 0);
  if (wantsHelp(values, io, helpFor("chat"))) return 0;
  const context = commandContext(values, io);
  const { style, warn } = context;
  const settings = await withContinue(values, context.settings, warn);
  if (io.stdin.isTTY && io.stdout.isTTY) return new ChatApp(io, settings, style).start();

  // Lines from a pipe: no terminal to ask permission questions, so the policy decides alone.
  const runtime = await openRuntime({ settings, env: io.env, warn });
  const surface = new RunSurface(io.stdout, io.stderr, style, true);
  runtime.agent.subscribe(
    new ProgressRenderer(surface, { style, liveText: true, hasPrice: hasPrice(runtime.registry) }).handle,
  );
  let code: ExitCode = 0;
  try {
    for await (const line of createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
      const prompt = line.trim();
      // `/plan TASK` runs TASK as a plan here too; other slash commands need the terminal.
      const plan = /^\/plan\s+(\S.*)$/.exec(prompt)?.[1];
      if (plan === undefined && (prompt === "" || prompt.startsWith("/"))) {
        if (prompt === "/exit" || prompt === "/quit") break;
        continue;
      }
      let prepared: PreparedPrompt;
      try {
        prepared = await preparePrompt(plan ?? prompt, {
          cwd: runtime.cwd,
          model: runtime.agent.state.model,
          mcp: runtime.mcp,
        });
      } catch (error) {
        io.stderr.write(`tern: ${errorText(error)}\n`);
        code = 2;
        break;
      }
      for (const warning of prepared.warnings) warn(warning);
      const result = await runtime.agent.prompt(prepared.text, {
        images: prepared.images,
        ...(plan !== undefined ? { strategy: "plan" as const } : {}),
      });
      if (result.stopReason === "error") {
        io.stderr.write(`tern: ${explainFailure(result, runtime.model)}\n`);
        code = 1;
        break;
      }
    }
  } finally {
    await runtime.close();
    surface.close();
  }
  return code;
}
