// `tern serve`: HTTP + SSE and JSON-RPC from @tern/server (see its README for the flags).
import { runServeCommand } from "@tern/server";
import { type ExitCode, UsageError } from "../cli/errors.js";

export async function serveCommand(argv: string[]): Promise<ExitCode> {
  try {
    return (await runServeCommand(argv)) === 0 ? 0 : 1;
  } catch (error) {
    // Flag problems are usage errors; anything after start-up (a port in use) fails the run.
    if (error instanceof Error && /must be|unknown|requires|expected/i.test(error.message)) {
      throw new UsageError(`serve: ${error.message}`);
    }
    throw error;
  }
}
