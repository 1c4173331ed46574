// The `tern` entry point. It answers --version and --help itself and imports the rest (the
// runtime, providers, tools: tern-app.js in the bundle) only when a command needs it, so
// `tern --version` stays fast.
import { setFlagsFromString } from "node:v8";
import { processIo } from "./cli/io.js";
import { helpFor } from "./help.js";
import { isOnePass, ONE_PASS_V8_FLAGS } from "./one-pass.js";
import { traceLoaded, traceStartup } from "./startup-trace.js";
import { VERSION } from "./version.js";

const io = processIo();
const argv = process.argv.slice(2);
// Before anything else loads (one-pass.ts says why).
if (isOnePass(argv)) setFlagsFromString(ONE_PASS_V8_FLAGS);

async function main(): Promise<number> {
  traceStartup("entry");
  const first = argv[0];
  if (first === "--version" || first === "-V" || first === "-v" || first === "version") {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    io.stdout.write(`${helpFor(argv[1] ?? "main")}\n`);
    return 0;
  }
  const { runCli } = await traceLoaded(import("./app.js"), "command table loaded");
  return runCli(argv, io);
}

function finish(code: number): void {
  // A CLI ends when its work is done: keep-alive sockets or a stray timer must not hold it open.
  io.flush(() => process.exit(code));
}

main().then(finish, (error: unknown) => {
  const debug = argv.includes("--debug");
  io.stderr.write(
    `tern: internal error: ${(error as Error)?.message ?? String(error)}${debug ? `\n${(error as Error)?.stack ?? ""}` : " (run with --debug for details)"}\n`,
  );
  finish(1);
});
