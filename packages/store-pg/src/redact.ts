// Passwords never reach a log line or an error message: connection URLs and libpq key=value
// strings have their password replaced, and so does the literal value of PGPASSWORD. Every
// message this package builds from a URL or a driver error goes through here, and so do the
// cluster's and the CLI's (`redactUrl` is the one way to show a store URL).
import { Redactor } from "@tern/ai";

const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)([^@\s]*)@/gi;
const KEYWORD_PASSWORD = /(\b(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]+)/gi;
/** Query parameters that may carry a secret (libpq's `password`, `sslpassword`, and the like). */
const SECRET_PARAM = /pass|pwd|secret|token/i;
export const HIDDEN = "***";

export function redactPasswords(text: string, env: NodeJS.ProcessEnv = process.env): string {
  const out = text.replace(URL_PASSWORD, `$1${HIDDEN}@`).replace(KEYWORD_PASSWORD, `$1${HIDDEN}`);
  // The literal password in any spelling (a URL percent-encodes it); a short one would hit words.
  return new Redactor([env.PGPASSWORD], { marker: HIDDEN, minLength: 3 }).text(out);
}

/**
 * A store URL fit to print: the user-info password and every secret-looking query parameter
 * (`?password=`, `sslpassword=`, ...) replaced by `***`, the rest kept so the operator sees which
 * database and options are meant. Text that is not a URL goes through `redactPasswords`.
 */
export function redactUrl(url: string, env: NodeJS.ProcessEnv = process.env): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactPasswords(url, env);
  }
  if (parsed.password) parsed.password = HIDDEN;
  for (const name of [...parsed.searchParams.keys()])
    if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, HIDDEN);
  return redactPasswords(parsed.toString(), env);
}

/** Where a store points, for messages: `postgres://user@host:port/db`, never the password. */
export function describeTarget(url: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (url === undefined || url === "") {
    const host = env.PGHOST ?? "localhost";
    const port = env.PGPORT ?? "5432";
    return `postgres://${env.PGUSER ?? ""}@${host}:${port}/${env.PGDATABASE ?? ""} (from PG* variables)`;
  }
  try {
    const parsed = new URL(url);
    parsed.password = "";
    parsed.search = ""; // options, not the target; may carry password=… or sslkey paths
    return parsed.toString();
  } catch {
    return redactUrl(url, env);
  }
}
