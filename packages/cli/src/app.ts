// Dispatches `tern <command>` and turns every failure into one line and an exit code:
// 0 done, 1 the work failed, 2 bad usage, 130 interrupted.
import { fileURLToPath } from "node:url";
import { closest } from "./cli/args.js";
import { CliError, type ExitCode, errorText, UsageError } from "./cli/errors.js";
import { type Io, processIo } from "./cli/io.js";
import { redactingIo } from "./cli/redacting-io.js";
import { useCodeCaches } from "./code-cache.js";
import { helpFor } from "./help.js";
import { isOnePass } from "./one-pass.js";
import { traceLoaded } from "./startup-trace.js";
import { VERSION } from "./version.js";

const COMMANDS = [
  "run",
  "chat",
  "sessions",
  "models",
  "usage",
  "hooks",
  "skills",
  "demo",
  "serve",
  "mcp",
  "acp",
  "worker",
  "store",
  "help",
  "version",
];

export async function runCli(argv: string[], processStreams: Io = processIo()): Promise<ExitCode> {
  // In the bundle, every command's chunks lie beside this file (src/code-cache.ts); from source
  // there are none, and nothing changes. A one-pass command runs under flags the caches were not
  // made with, and never runs the agent, so it neither uses them nor traces (one-pass.ts).
  const onePass = isOnePass(argv);
  if (!onePass)
    useCodeCaches(fileURLToPath(new URL("./chunks/", import.meta.url)), {
      rewrite: processStreams.env.TERN_TRAIN_CODE_CACHES === "1",
    });
  const io = redactingIo(processStreams);
  const tracing =
    TRACED.has(argv[0] ?? "") && !onePass
      ? await (await import("./runtime/tracing.js")).startTracing(io.env, (line) =>
          io.stderr.write(`tern: ${line}\n`),
        )
      : undefined;
  try {
    return await dispatch(argv, io);
  } finally {
    // Every way out (answer, failure, Ctrl-C's abort, serve's stop) passes here: the spans go first.
    await tracing?.shutdown();
  }
}

/**
 * Commands that run the agent (every host of runtime/coding-agent.ts: `sessions resume`, a
 * worker's runs and `mcp serve`'s tasks too), so trace when OTEL_EXPORTER_OTLP_*ENDPOINT is set.
 */
const TRACED = new Set(["run", "chat", "serve", "worker", "sessions", "mcp", "acp"]);

/** A command's module once loaded (a milestone of TERN_STARTUP_TRACE). */
function commandModule<T>(loading: Promise<T>): Promise<T> {
  return traceLoaded(loading, "command module loaded");
}

async function dispatch(argv: string[], io: Io): Promise<ExitCode> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "run":
        return await (await commandModule(import("./commands/run.js"))).runCommand(rest, io);
      case "chat":
        return await (await commandModule(import("./commands/chat.js"))).chatCommand(rest, io);
      case "sessions":
        return await (await commandModule(import("./commands/sessions.js"))).sessionsCommand(rest, io);
      case "models":
        return await (await commandModule(import("./commands/models.js"))).modelsCommand(rest, io);
      case "usage":
        return await (await commandModule(import("./commands/usage.js"))).usageCommand(rest, io);
      case "hooks":
        return await (await commandModule(import("./commands/hooks.js"))).hooksCommand(rest, io);
      case "skills":
        return await (await commandModule(import("./commands/skills.js"))).skillsCommand(rest, io);
      case "demo":
        return await (await commandModule(import("./commands/demo.js"))).demoCommand(rest, io);
      case "serve":
        return await (await commandModule(import("./commands/serve.js"))).serveCommand(rest, io);
      case "mcp":
        return await (await commandModule(import("./commands/mcp.js"))).mcpCommand(rest, io);
      case "acp":
        return await (await commandModule(import("./commands/acp.js"))).acpCommand(rest, io);
      case "worker":
        return await (await commandModule(import("./commands/cluster.js"))).workerCommand(rest, io);
      case "store":
        return await (await commandModule(import("./commands/store.js"))).storeCommand(rest, io);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout.write(`${helpFor(rest[0] ?? "main")}\n`);
        return 0;
      case "version":
      case "--version":
      case "-V":
      case "-v":
        io.stdout.write(`${VERSION}\n`);
        return 0;
      default: {
        const guess = command.startsWith("-") ? undefined : closest(command, COMMANDS);
        throw new UsageError(
          command.startsWith("-")
            ? `${command} must come after a command, e.g. tern run ${command} …; see tern --help`
            : `unknown command "${command}"${guess ? `; did you mean "tern ${guess}"?` : ""} (see tern --help)`,
        );
      }
    }
  } catch (error) {
    return report(error, io, argv.includes("--debug"));
  }
}

export function report(error: unknown, io: Io, debug: boolean): ExitCode {
  if (error instanceof CliError) {
    io.stderr.write(`tern: ${error.message}\n`);
    if (debug && error.stack) io.stderr.write(`${error.stack}\n`);
    return error.exitCode;
  }
  io.stderr.write(
    `tern: internal error: ${errorText(error)}${debug ? "" : " (run with --debug for details)"}\n`,
  );
  if (debug && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  return 1;
}
