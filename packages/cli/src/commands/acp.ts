// `tern acp`: tern as an Agent Client Protocol agent on stdin/stdout, for editors (Zed, JetBrains
// IDEs, ...) that start it as a child process. The flags are `tern run`'s (model, mode, rules,
// sandbox) and --allow-root DIR; a session works in the cwd its client names, which must lie in
// the directory tern acp started in or an --allow-root. Stdout carries only protocol frames (the
// SDK's newline-delimited JSON-RPC); warnings and logs go to stderr. The command ends when the
// client closes stdin.
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { acpAgent } from "../acp/agent.js";
import { AGENT_OPTIONS, parseCommandArgs } from "../cli/args.js";
import type { ExitCode } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { chooseModel, createRegistry, ensureConfiguredKey } from "../config/model.js";
import { helpFor, wantsHelp } from "../help.js";
import { allowedRoots, commandContext } from "./shared.js";

const { session: _loadedBySessionLoad, ...SESSION_OPTIONS } = AGENT_OPTIONS;
const OPTIONS = { ...SESSION_OPTIONS, "allow-root": { type: "string", multiple: true } } as const;

export async function acpCommand(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parseCommandArgs("acp", argv, OPTIONS, 0);
  if (wantsHelp(values, io, helpFor("acp"))) return 0;
  const { settings } = commandContext(values, io);
  const warn = (message: string) => io.stderr.write(`tern acp: warning: ${message}\n`);
  const roots = allowedRoots(values, settings, io);
  // The model and its key are checked now: a bad flag is exit 2 before the editor connects.
  const model = chooseModel(createRegistry(settings, warn), settings, io.env, settings.config.path);
  await ensureConfiguredKey(model, settings, io.env);

  const agent = acpAgent({ settings, roots, env: io.env, warn });
  const stream = ndJsonStream(
    Writable.toWeb(io.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(io.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = agent.app.connect(stream);
  const stop = () => connection.close();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  io.stderr.write(`tern acp: ready on stdio (permissions ${settings.mode}; roots ${roots.join(", ")})\n`);
  try {
    await connection.closed;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await agent.close();
  }
  return 0;
}
