// The `tern` entry point. It answers --version and --help itself and imports the rest (the
// runtime, providers, tools: tern-app.js in the bundle) only when a command needs it, so
// `tern --version` stays fast.
import { helpFor } from "./help.js";
import { traceLoaded, traceStartup } from "./startup-trace.js";
import { VERSION } from "./version.js";

async function main(argv: string[]): Promise<number> {
  traceStartup("entry");
  const first = argv[0];
  if (first === "--version" || first === "-V" || first === "-v" || first === "version") {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    process.stdout.write(`${helpFor(argv[1] ?? "main")}\n`);
    return 0;
  }
  const { runCli } = await traceLoaded(import("./app.js"), "command table loaded");
  return runCli(argv);
}

function finish(code: number): void {
  // A CLI ends when its work is done: keep-alive sockets or a stray timer must not hold it open.
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
}

main(process.argv.slice(2)).then(finish, (error: unknown) => {
  const debug = process.argv.includes("--debug");
  process.stderr.write(
    `tern: internal error: ${(error as Error)?.message ?? String(error)}${debug ? `\n${(error as Error)?.stack ?? ""}` : " (run with --debug for details)"}\n`,
  );
  finish(1);
});
