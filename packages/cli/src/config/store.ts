// Which SessionStore a command uses: `--store URL`, else TERN_STORE, else "store" in config.json,
// else the JSONL files under $TERN_HOME. A postgres:// (or postgresql://) URL selects the
// PostgreSQL store; credentials come only from the URL or the PG* variables and never appear in
// a message. A database that cannot be reached, or whose schema is newer, stops the command at
// start with exit 2, before any work.
import { FileSessionStore, type FileSessionStoreOptions, type SessionStore } from "@tern/session";
import { type OptionValues, stringOption } from "../cli/args.js";
import { CliError, UsageError } from "../cli/errors.js";
import type { TernConfig } from "./config-file.js";

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

/** The store URL from flag, environment or config; undefined means the file store. */
export function storeUrlFrom(
  values: OptionValues,
  env: NodeJS.ProcessEnv,
  config: TernConfig,
): string | undefined {
  const flag = stringOption(values, "store");
  const url = flag ?? (env.TERN_STORE || undefined) ?? config.store;
  if (url === undefined || url === "" || url === "file") return undefined;
  if (!POSTGRES_URL.test(url))
    throw new UsageError(
      `${flag !== undefined ? "--store" : env.TERN_STORE ? "TERN_STORE" : '"store" in config.json'} must be a postgres://user@host:port/db URL or "file"`,
    );
  return url;
}

/** Opens the store `url` names (connecting and migrating now), or the file store under `home`. */
export async function openStore(
  url: string | undefined,
  home: string,
  options: {
    warn?: (message: string) => void;
    file?: Omit<FileSessionStoreOptions, "home">;
    /** The database store's single-writer lease (cluster nodes pass their run lease). */
    leaseMs?: number;
  } = {},
): Promise<SessionStore> {
  if (url === undefined) return new FileSessionStore({ home, ...options.file });
  // Loaded only when asked for: the file store's commands never load the database client.
  const { PgSessionStore } = await import("@tern/store-pg");
  try {
    return await PgSessionStore.connect({
      url,
      ...(options.file?.newSessionId ? { newSessionId: options.file.newSessionId } : {}),
      ...(options.warn ? { log: options.warn } : {}),
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    });
  } catch (error) {
    throw storeFailure(error);
  }
}

/** Codes of a store that cannot be used at all (exit 2); the others are a failed run (exit 1). */
const SETUP_FAILURES = new Set(["unreachable", "schema"]);

/** PgStoreErrors as CLI errors: unreachable or an unusable schema is exit 2. */
export function storeFailure(error: unknown): unknown {
  if (!(error instanceof Error) || error.name !== "PgStoreError") return error;
  return new CliError(
    error.message,
    SETUP_FAILURES.has((error as Error & { code?: string }).code ?? "") ? 2 : 1,
  );
}
