// Passwords never reach a log line or an error message: connection URLs and libpq key=value
// strings have their password replaced, and so does the literal value of PGPASSWORD. Every
// message this package builds from a URL or a driver error goes through here.
import { Redactor } from "@tern/ai";

const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)([^@\s]*)@/gi;
const KEYWORD_PASSWORD = /(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)/gi;
export const HIDDEN = "***";

export function redactPasswords(text: string, env: NodeJS.ProcessEnv = process.env): string {
  const out = text.replace(URL_PASSWORD, `$1${HIDDEN}@`).replace(KEYWORD_PASSWORD, `$1${HIDDEN}`);
  // The literal password in any spelling (a URL percent-encodes it); a short one would hit words.
  return new Redactor([env.PGPASSWORD], { marker: HIDDEN, minLength: 3 }).text(out);
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
    parsed.search = ""; // may carry password=… or sslkey paths
    return parsed.toString();
  } catch {
    return redactPasswords(url, env);
  }
}
