// Failures of the PostgreSQL store that are not about one session's content: the database cannot
// be reached, its schema is newer than this code, or this writer lost its lease. Messages never
// hold a password (see redact.ts). `isDatabaseUnavailable` is the one answer to "is the database
// down right now?" for the store, the cluster and the CLI.
import { SessionError } from "@tern/session";
import { redactPasswords } from "./redact.js";

export type PgStoreErrorCode =
  /** The database refused or did not answer (at start, or for longer than the retry window). */
  | "unreachable"
  /** The schema is newer than this code knows, or a migration failed. */
  | "schema"
  /** Another writer took this session over (this one was gone longer than the lease). */
  | "lease_lost"
  /** The database refused a write for another reason than the connection (disk full, permissions). */
  | "write_failed";

export class PgStoreError extends Error {
  override name = "PgStoreError";
  constructor(
    readonly code: PgStoreErrorCode,
    message: string,
  ) {
    super(redactPasswords(message));
  }
}

/** Socket-level codes of a server that is away (refused, reset, unroutable, DNS not answering). */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EAI_AGAIN",
]);

/**
 * Whether `error` means "the database is not there right now" (worth retrying, or answering 503)
 * rather than "this statement is wrong". SQLSTATE class 08 is connection exceptions, 57P01-57P03
 * a server shutting down or starting, 53300 too many connections; pg's own errors without a code
 * ("Connection terminated unexpectedly", "timeout exceeded when trying to connect", "Client has
 * encountered a connection error and is not queryable") are connection failures too, and so are
 * this package's own verdicts (`unreachable`, a session store's `unavailable`).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof PgStoreError) return error.code === "unreachable";
  if (error instanceof SessionError) return error.code === "unavailable";
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string") {
    if (SOCKET_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code))
      return code.startsWith("08") || code.startsWith("57P") || code === "53300";
    return false;
  }
  const message = (error as Error)?.message ?? "";
  return /connection|terminat|timeout|closed|ended/i.test(message);
}

export function messageOf(error: unknown): string {
  return redactPasswords(error instanceof Error ? error.message : String(error));
}
