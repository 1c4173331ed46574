// A runnable `tern serve` on its own (tests bundle it); the `tern` command calls the same function.
import { runServeCommand } from "./serve-command.js";

runServeCommand(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`tern serve: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
