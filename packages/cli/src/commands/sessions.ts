// `tern sessions ls | show ID | resume ID | fork ID [ENTRY] | rewind ID [--to N] | export ID --format jsonl|md | --cassette`.
// The transcript, rewind and cassette modules are imported by the subcommands that use them, so
// `ls`, the common case, loads none of them (nor the agent and tools code they bring).
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { SessionStore } from "@tern/session";
import { AGENT_OPTIONS, type OptionValues, parseCommandArgs, stringOption } from "../cli/args.js";
import { CliError, type ExitCode, UsageError } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { loadHome } from "../config/home.js";
import { openStore, storeFailure, storeUrlFrom } from "../config/store.js";
import { helpFor, wantsHelp } from "../help.js";
import { ago, formatCost, oneLine, padEnd } from "../render/format.js";
import { colorEnabled, createStyle } from "../render/style.js";
import type { ResumePlan } from "../runtime/resume.js";
import { resolveStoreSessionId, sessionFailure } from "../runtime/session-ids.js";
import type { RewindWhat } from "../sessions/rewind.js";

export async function sessionsCommand(argv: string[], io: Io): Promise<ExitCode> {
  const [sub, ...rest] = argv;
  try {
    switch (sub) {
      case "ls":
      case "list":
        return await list(rest, io);
      case "show":
        return await show(rest, io);
      case "resume":
        return await resume(rest, io);
      case "fork":
        return await fork(rest, io);
      case "export":
        return await exportSession(rest, io);
      case "rewind":
        return await rewind(rest, io);
      case undefined:
      case "--help":
      case "-h":
      case "help":
        io.stdout.write(`${helpFor("sessions")}\n`);
        return sub === undefined ? 2 : 0;
      default:
        throw new UsageError(
          `unknown sessions command "${sub}"; use ls, show, resume, fork, rewind or export`,
        );
    }
  } catch (error) {
    throw sessionFailure(storeFailure(error));
  }
}

/** --store (the sessions commands that do not run an agent take it too). */
const STORE_OPTION = { store: { type: "string" } } as const;

/** Runs `work` with the store the flags, TERN_STORE or config.json name, then closes it. */
async function withStore<T>(
  io: Io,
  values: OptionValues,
  work: (store: SessionStore, resolveId: (text: string) => Promise<string>) => Promise<T>,
): Promise<T> {
  const { home, config } = loadHome(io);
  const store = await openStore(storeUrlFrom(values, io.env, config.config), home);
  try {
    return await work(store, (text) => resolveStoreSessionId(store, home, text));
  } finally {
    await store.close?.();
  }
}

function needId(positionals: string[], command: string): string {
  const id = positionals[0];
  if (id === undefined)
    throw new UsageError(`tern sessions ${command} needs a session ID; see tern sessions ls`);
  return id;
}

async function list(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parseCommandArgs(
    "sessions ls",
    argv,
    {
      all: { type: "boolean" },
      json: { type: "boolean" },
      cwd: { type: "string", short: "C" },
      ...STORE_OPTION,
    },
    0,
  );
  if (wantsHelp(values, io, helpFor("sessions"))) return 0;
  const cwd = resolve(io.cwd, stringOption(values, "cwd") ?? ".");
  const sessions = await withStore(io, values, (store) => store.list(values.all ? {} : { cwd }));
  if (values.json) {
    io.stdout.write(`${JSON.stringify(sessions, null, 2)}\n`);
    return 0;
  }
  const style = createStyle(colorEnabled(io.stdout, io.env));
  if (sessions.length === 0) {
    io.stdout.write(
      values.all
        ? "no sessions yet\n"
        : `no sessions for ${cwd} yet (tern sessions ls --all lists every directory)\n`,
    );
    return 0;
  }
  // One write for the whole table: each write is a syscall and a pass through the redactor.
  const lines = [
    style.dim(`${padEnd("ID", 10)}${padEnd("UPDATED", 10)}${padEnd("MSGS", 6)}${padEnd("COST", 9)}TITLE`),
  ];
  for (const s of sessions) {
    // The file's path is long and the session's own: the line and the reason fit; `show` has the rest.
    const why =
      s.path !== undefined && s.error?.startsWith(`${s.path}:`)
        ? `line ${s.error.slice(s.path.length + 1)}`
        : s.error;
    const title =
      why !== undefined
        ? style.red(
            `unreadable: ${oneLine(why, 60)} (tern sessions show ${s.id.slice(0, 8)} says how to recover)`,
          )
        : oneLine(s.title || "(empty)", 70);
    const where = values.all ? style.dim(`  ${s.cwd}`) : "";
    const fork = s.parentSession ? style.dim(` (fork of ${s.parentSession.id.slice(0, 8)})`) : "";
    lines.push(
      `${padEnd(s.id.slice(0, 8), 10)}${padEnd(ago(s.updated), 10)}${padEnd(String(s.messageCount), 6)}${padEnd(formatCost(s.cost), 9)}${title}${fork}${where}`,
    );
  }
  io.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

async function show(argv: string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("sessions show", argv, STORE_OPTION, 1);
  if (wantsHelp(values, io, helpFor("sessions"))) return 0;
  const session = await withStore(io, values, async (store, resolveId) =>
    store.load(await resolveId(needId(positionals, "show"))),
  );
  const { showLines } = await import("../sessions/transcript.js");
  const style = createStyle(colorEnabled(io.stdout, io.env));
  for (const warning of session.warnings)
    io.stderr.write(`tern: warning: line ${warning.line}: ${warning.message}\n`);
  io.stdout.write(`${showLines(session, style).join("\n")}\n`);
  return 0;
}

async function fork(argv: string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("sessions fork", argv, STORE_OPTION, 2);
  if (wantsHelp(values, io, helpFor("sessions"))) return 0;
  return withStore(io, values, (store, resolveId) => forkIn(store, resolveId, positionals, io));
}

async function forkIn(
  store: SessionStore,
  resolveId: (text: string) => Promise<string>,
  positionals: string[],
  io: Io,
): Promise<ExitCode> {
  const id = await resolveId(needId(positionals, "fork"));
  let entryId = positionals[1];
  if (entryId !== undefined) {
    const source = await store.load(id);
    if (!source.getEntry(entryId)) {
      const labelled = source.findLabel(entryId);
      if (!labelled)
        throw new UsageError(
          `session ${id.slice(0, 8)} has no entry or label "${entryId}"; see tern sessions show ${id.slice(0, 8)}`,
        );
      entryId = labelled.id;
    }
  }
  const forked = await store.fork(id, entryId !== undefined ? { entryId } : {});
  await forked.close();
  io.stdout.write(`${forked.id}\n`);
  io.stderr.write(
    `forked ${id.slice(0, 8)}${entryId ? ` at ${entryId}` : ""}; continue it with: tern chat --session ${forked.id.slice(0, 8)}\n`,
  );
  return 0;
}

async function exportSession(argv: string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs(
    "sessions export",
    argv,
    {
      format: { type: "string", short: "f" },
      output: { type: "string", short: "o" },
      cassette: { type: "boolean" },
      ...STORE_OPTION,
    },
    1,
  );
  if (wantsHelp(values, io, helpFor("sessions"))) return 0;
  const format = stringOption(values, "format") ?? "jsonl";
  if (format !== "jsonl" && format !== "md")
    throw new UsageError(`--format must be jsonl or md (got ${JSON.stringify(format)})`);
  const text = await withStore(io, values, async (store, resolveId) => {
    const id = await resolveId(needId(positionals, "export"));
    if (values.cassette === true)
      return (await import("../sessions/cassette-export.js")).sessionCassette(await store.load(id));
    if (format === "md") return (await import("../sessions/transcript.js")).toMarkdown(await store.load(id));
    // The file store's file as it is; a database store's lines in the same format.
    const jsonl = (store as { jsonl?: (id: string) => Promise<string> }).jsonl;
    return jsonl ? jsonl.call(store, id) : readFileSync((await store.load(id)).path!, "utf8");
  });
  const output = stringOption(values, "output");
  if (output !== undefined) {
    const path = resolve(io.cwd, output);
    writeOutput(path, text);
    io.stderr.write(`wrote ${path}\n`);
  } else io.stdout.write(text);
  return 0;
}

/** Why -o cannot be written, for the path problems a user fixes by choosing another path. */
const OUTPUT_PROBLEMS: Record<string, string> = {
  ENOENT: "its directory does not exist",
  ENOTDIR: "a part of the path is not a directory",
  EISDIR: "it is a directory",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "the file system is read-only",
};

function writeOutput(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    const problem = OUTPUT_PROBLEMS[code];
    if (problem) throw new UsageError(`cannot write -o ${path}: ${problem}`);
    throw new CliError(`cannot write -o ${path}: ${(error as Error).message}`);
  }
}

async function resume(argv: string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("sessions resume", argv, {
    ...AGENT_OPTIONS,
    json: { type: "boolean" },
  });
  if (wantsHelp(values, io, helpFor("sessions"))) return 0;
  const id = needId(positionals, "resume");
  const prompt = positionals.slice(1).join(" ").trim();
  const json = values.json === true;
  // The agent's settings and runtime load here, not with the command: `sessions ls` and `show`
  // never need them.
  const [{ commandContext }, { openRuntime }, { resumePlan }, { executeRun }, { RunSurface }] =
    await Promise.all([
      import("./shared.js"),
      import("../runtime/runtime.js"),
      import("../runtime/resume.js"),
      import("../runtime/execute.js"),
      import("../render/run-surface.js"),
    ]);
  const { settings, style, warn } = commandContext({ ...values, session: id }, io);
  const runtime = await openRuntime({ settings, env: io.env, warn });
  const plan = resumePlan(runtime.session, runtime.resumed?.needsContinue === true);
  if (prompt === "" && plan.kind === "finished") {
    await runtime.close();
    if (io.stdin.isTTY && io.stdout.isTTY && !json) {
      const { chatCommand } = await import("./chat.js");
      return chatCommand([...argv.filter((arg) => arg !== id), "--session", runtime.session.id], io);
    }
    const short = runtime.session.id.slice(0, 8);
    io.stderr.write(
      `tern: session ${short} finished its last run; go on with tern chat --session ${short} or tern run --session ${short} "…"\n`,
    );
    return 0;
  }
  if (!json)
    io.stderr.write(
      style.dim(`resuming session ${runtime.session.id.slice(0, 8)} (${RESUME_NOTES[plan.kind]})\n`),
    );
  const surface = new RunSurface(io.stdout, io.stderr, style, !json);
  const { code } = await executeRun({
    io,
    style,
    surface,
    runtime,
    json,
    start: () => {
      if (prompt !== "")
        return runtime.agent.prompt(plan.kind === "prompt" ? `${plan.note}\n\n${prompt}` : prompt);
      if (plan.kind === "plan") return runtime.agent.resumePlan(plan.checkpoint);
      return plan.kind === "continue"
        ? runtime.agent.continue()
        : runtime.agent.prompt((plan as { note: string }).note);
    },
  });
  return code;
}

const RESUME_NOTES: Record<ResumePlan["kind"], string> = {
  continue: "repaired an interrupted run",
  plan: "an unfinished plan: its finished steps are kept",
  prompt: "the last run did not finish",
  finished: "new prompt",
};

async function rewind(argv: string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs(
    "sessions rewind",
    argv,
    {
      to: { type: "string" },
      code: { type: "boolean" },
      conversation: { type: "boolean" },
      both: { type: "boolean" },
      force: { type: "boolean" },
      ...STORE_OPTION,
    },
    1,
  );
  if (wantsHelp(values, io, helpFor("sessions"))) return 0;
  const chosen = (["code", "conversation", "both"] as const).filter((what) => values[what] === true);
  if (chosen.length > 1) throw new UsageError("give one of --code, --conversation or --both");
  const what: RewindWhat = chosen[0] ?? "both";
  const { home } = loadHome(io);
  const [{ rewindSession, turnsOf }, { rewindLines }] = await Promise.all([
    import("../sessions/rewind.js"),
    import("../render/rewind-lines.js"),
  ]);
  return withStore(io, values, async (store, resolveId) => {
    const session = await store.open(await resolveId(needId(positionals, "rewind")));
    try {
      const turns = turnsOf(session);
      const short = session.id.slice(0, 8);
      if (turns.length === 0) throw new UsageError(`session ${short} has no turns to rewind`);
      const spelled = stringOption(values, "to");
      const number = spelled === undefined ? turns.length : Number(spelled);
      const to = turns.find((turn) => turn.number === number);
      if (!to)
        throw new UsageError(
          `--to must be a turn number from 1 to ${turns.length} (got ${JSON.stringify(spelled)}); tern sessions show ${short} lists them`,
        );
      const force = values.force === true;
      const outcome = await rewindSession(session, home, { to, what, force });
      const style = createStyle(colorEnabled(io.stdout, io.env));
      for (const line of rewindLines(outcome, session.header.cwd, style)) io.stdout.write(`${line}\n`);
      return outcome.refused || outcome.failed.length > 0 ? 1 : 0;
    } finally {
      await session.close();
    }
  });
}
