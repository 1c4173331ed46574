// Session failures carry a code and the file (and line) they concern, so callers can act on them
// and users can find the problem with an editor.

export type SessionErrorCode =
  /** A line in the middle of the file is not a valid entry. */
  | "corrupt"
  /** The header is missing or from a newer format version. */
  | "format"
  /** Another live process writes this session. */
  | "locked"
  | "not_found"
  /** An append to a read-only (loaded, or closed) session. */
  | "read_only"
  /** An argument names an entry that does not exist. */
  | "invalid"
  /** The store cannot be reached right now (its database is down); try again shortly. */
  | "unavailable";

export class SessionError extends Error {
  override name = "SessionError";
  constructor(
    readonly code: SessionErrorCode,
    message: string,
    readonly file?: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

/**
 * A line no reader may skip. The message says what to do, since nothing repairs it for the user:
 * the file is left as it is (never rewritten), so the lines around it are not lost.
 */
export function corruptLine(file: string, line: number, reason: string): SessionError {
  const hint =
    `the file was not changed and its other lines are as written. To recover, move line ${line} ` +
    "out of the file into a copy (with any later line whose parentId is that line's id), then open " +
    "the session again";
  return new SessionError("corrupt", `${file}:${line}: corrupt session line: ${reason}; ${hint}`, file, line);
}
