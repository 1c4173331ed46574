// `tern store status|migrate [--store URL]`: the PostgreSQL session store's schema. status reads
// the version and lists pending migrations (exit 1 while any are pending); migrate applies them
// (what every node also does on start). The URL comes from --store, TERN_STORE or config.json;
// an unreachable database is exit 2, and no message shows its password.
import { parseCommandArgs } from "../cli/args.js";
import { type ExitCode, UsageError } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { loadHome } from "../config/home.js";
import { storeFailure, storeUrlFrom } from "../config/store.js";
import { helpFor, wantsHelp } from "../help.js";

export async function storeCommand(argv: string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs(
    "store",
    argv,
    { store: { type: "string" }, json: { type: "boolean" } },
    1,
  );
  if (wantsHelp(values, io, helpFor("store"))) return 0;
  const sub = positionals[0];
  if (sub !== "status" && sub !== "migrate")
    throw new UsageError(
      sub === undefined
        ? "tern store needs status or migrate"
        : `unknown store command "${sub}"; use status or migrate`,
    );
  const url = storeUrlFrom(values, io.env, loadHome(io).config.config);
  if (url === undefined)
    throw new UsageError(
      "tern store needs a PostgreSQL store: --store postgres://user@host:port/db (or TERN_STORE); the file store has no schema",
    );
  const { PgSessionStore, migrate, schemaStatus } = await import("@tern/store-pg");
  const store = new PgSessionStore({ url, migrate: false });
  try {
    await store.ready();
    if (sub === "migrate") {
      const { from, to } = await migrate(store.pool);
      io.stdout.write(
        from === to
          ? `${store.target}: schema already at version ${to}\n`
          : `${store.target}: schema migrated from version ${from} to ${to}\n`,
      );
      return 0;
    }
    const status = await schemaStatus(store.pool);
    if (values.json) io.stdout.write(`${JSON.stringify({ target: store.target, ...status })}\n`);
    else
      io.stdout.write(
        `${store.target}: schema version ${status.current} of ${status.latest}${status.pending.length > 0 ? `; pending: ${status.pending.join(", ")} (run tern store migrate)` : " (up to date)"}\n`,
      );
    return status.pending.length > 0 ? 1 : 0;
  } catch (error) {
    throw storeFailure(error);
  } finally {
    await store.close();
  }
}
