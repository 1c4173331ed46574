// Runs the agent once for `run`, `sessions resume` and `demo`: renders progress (or JSON events),
// handles Ctrl-C (the first aborts the run cleanly and the session is saved; a second quits at
// once), closes the session and maps the outcome to an exit code.
import { type AgentRunResult, PROMPT_TOO_LARGE } from "@tern/agent";
import { describeSandbox, latestTodos } from "@tern/tools";
import type { ExitCode } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { hasPrice, modelLabel } from "../config/model.js";
import { activePolicies, policiesLabel } from "../config/policy-settings.js";
import { plural } from "../render/format.js";
import { instructionsEvent, instructionsHeader } from "../render/instructions.js";
import { eventJson } from "../render/json-events.js";
import { ProgressRenderer } from "../render/progress.js";
import type { RunSurface } from "../render/run-surface.js";
import { skillsEvent, skillsHeader } from "../render/skills.js";
import { colorEnabled, type Style } from "../render/style.js";
import { todoLines } from "../render/todo-lines.js";
import { answerProblem, explainFailure } from "./failure.js";
import type { Runtime } from "./runtime.js";

export interface ExecuteOptions {
  io: Io;
  style: Style;
  surface: RunSurface;
  runtime: Runtime;
  json: boolean;
  /** Starts the run: agent.prompt(...) or agent.continue(). */
  start: () => Promise<AgentRunResult>;
  /** A label for the header line ("scripted model" in the demo). */
  modelNote?: string;
}

export interface ExecuteOutcome {
  code: ExitCode;
  result: AgentRunResult | undefined;
}

export async function executeRun(options: ExecuteOptions): Promise<ExecuteOutcome> {
  const { io, style, surface, runtime, json } = options;
  const { agent, session } = runtime;
  const shortId = session.id.slice(0, 8);
  let renderer: ProgressRenderer | undefined;
  let synthesisError: string | undefined;
  agent.subscribe((event) => {
    if (event.type === "answer_end" && event.error !== undefined) synthesisError = event.error;
  });
  if (json) {
    const { instructions } = runtime;
    const { skills } = runtime.coding;
    let started = false;
    agent.subscribe((event) => {
      io.stdout.write(`${eventJson(event, session.id)}\n`);
      // Right after the first agent_start, which stays the first line (scripts read the session
      // id there): what the run loaded (instructions and skills, when it has any) and its policies.
      if (event.type !== "agent_start" || started) return;
      started = true;
      if (instructions.files.length > 0 || instructions.warnings.length > 0)
        io.stdout.write(`${JSON.stringify(instructionsEvent(instructions))}\n`);
      if (skills.skills.length > 0 || skills.warnings.length > 0)
        io.stdout.write(`${JSON.stringify(skillsEvent(skills))}\n`);
      io.stdout.write(
        `${JSON.stringify({ type: "policies", policies: activePolicies(runtime.policies) })}\n`,
      );
    });
  } else {
    const tty = io.stdout.isTTY === true;
    renderer = new ProgressRenderer(surface, {
      style,
      liveText: tty,
      hasPrice: hasPrice(runtime.registry),
      // Markdown is drawn only for a person at a terminal; a pipe gets the model's text as written.
      ...(tty
        ? {
            markdown: (await import("../render/terminal-markdown.js")).terminalMarkdown(
              colorEnabled(io.stdout, io.env),
              io.stdout.columns ?? 80,
            ),
          }
        : {}),
    });
    agent.subscribe(renderer.handle);
    const parts = [
      options.modelNote ?? modelLabel(runtime.model),
      `session ${shortId}`,
      `permissions ${runtime.permissions.mode}`,
      describeSandbox(runtime.sandbox),
      policiesLabel(runtime.policies),
      ...(runtime.mcp
        ? [
            `mcp ${runtime.mcp
              .status()
              .map((server) => server.name)
              .join(", ")}`,
          ]
        : []),
      runtime.cwd,
    ];
    surface.line(style.dim(`tern · ${parts.join(" · ")}`));
    const instructions = instructionsHeader(runtime.instructions, runtime.cwd);
    if (instructions) surface.line(style.dim(`tern · ${instructions}`));
    const skills = skillsHeader(runtime.coding.skills);
    if (skills) surface.line(style.dim(`tern · ${skills}`));
    // A resumed session shows the todo list it left off with.
    const todos = runtime.resumed && latestTodos(runtime.resumed.context.messages);
    if (todos) for (const text of todoLines(todos, style)) surface.line(text);
  }

  let interrupted = false;
  const onSigint = () => {
    if (interrupted) {
      io.stderr.write("\ntern: interrupted twice, quitting now\n");
      process.exit(130);
    }
    interrupted = true;
    const notice = style.yellow("tern: interrupting… (Ctrl-C again to quit at once)");
    if (renderer) renderer.note(notice);
    else io.stderr.write(`${notice}\n`);
    agent.abort();
  };
  process.on("SIGINT", onSigint);
  let result: AgentRunResult | undefined;
  try {
    result = await options.start();
  } finally {
    process.off("SIGINT", onSigint);
    await runtime.close();
    surface.close();
  }
  return { code: exitCode(result, interrupted, options, synthesisError), result };
}

function exitCode(
  result: AgentRunResult,
  interrupted: boolean,
  options: ExecuteOptions,
  synthesisError: string | undefined,
): ExitCode {
  const { io, runtime, style, json } = options;
  const id = runtime.session.id;
  const fail = (message: string): ExitCode => {
    io.stderr.write(`tern: ${message}\n`);
    return 1;
  };
  if (runtime.binding.error) return fail(`could not save the session: ${runtime.binding.error.message}`);
  if (interrupted || result.stopReason === "aborted") {
    io.stderr.write(`tern: interrupted; the session is saved: tern sessions resume ${id}\n`);
    return interrupted ? 130 : 1;
  }
  if (result.stopReason === "max_iterations")
    return fail(
      `stopped after ${plural(result.iterations, "turn")} without a final answer; raise --max-turns to allow more`,
    );
  switch (result.stopReason) {
    case "error":
      // The prompt cannot fit the model at all: a usage error, like a bad flag.
      if (result.errorKind === PROMPT_TOO_LARGE) {
        fail(explainFailure(result, runtime.model));
        return 2;
      }
      return fail(explainFailure(result, runtime.model));
    case "stopped_by_hook":
      return fail(`a hook stopped the run: ${result.errorMessage ?? "no reason given"}`);
    default: {
      const problem = answerProblem(result, synthesisError, id);
      if (problem) return fail(problem);
      if (!json)
        io.stderr.write(
          style.dim(`· session ${id.slice(0, 8)} saved · tern sessions show ${id.slice(0, 8)}\n`),
        );
      return 0;
    }
  }
}
