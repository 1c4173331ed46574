// Session ids are long UUIDs; people type the first few characters. Resolves a unique prefix by
// file name alone (no session file is read), and `-c/--continue` to the directory's newest session.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { FileSessionStore, SessionError, type SessionStore } from "@tern/session";
import type { OptionValues } from "../cli/args.js";
import { CliError, UsageError } from "../cli/errors.js";
import type { AgentSettings } from "../config/settings.js";
import { openStore, storeFailure } from "../config/store.js";

/** `-c/--continue` of run and chat. */
export const CONTINUE_OPTION = { continue: { type: "boolean", short: "c" } } as const;

/** With -c/--continue: `settings` resuming the newest session of the working directory. */
export async function withContinue(
  values: OptionValues,
  settings: AgentSettings,
  warn: (message: string) => void,
): Promise<AgentSettings> {
  if (values.continue !== true) return settings;
  if (settings.sessionId !== undefined)
    throw new UsageError("--continue and --session both name a session; pass one of them");
  const store = await openStore(settings.store, settings.home, { warn });
  try {
    const newest = (await store.list({ cwd: settings.cwd }))[0];
    if (!newest)
      throw new UsageError(
        `no session of ${settings.cwd} to continue; start one with tern run "…" or tern chat (tern sessions ls --all lists every directory)`,
      );
    return { ...settings, sessionId: newest.id };
  } catch (error) {
    throw storeFailure(error);
  } finally {
    await store.close?.();
  }
}

export function resolveSessionId(home: string, text: string): string {
  checkText(text);
  const root = join(home, "sessions");
  const ids = new Set<string>();
  for (const dir of safeReaddir(root)) {
    for (const name of safeReaddir(join(root, dir))) {
      if (!name.endsWith(".jsonl")) continue;
      const id = name.slice(0, -".jsonl".length);
      if (id === text) return id;
      if (id.startsWith(text)) ids.add(id);
    }
  }
  return unique(text, ids, `under ${root}`);
}

/** The same for any store: file names for the file store, the store's list otherwise. */
export async function resolveStoreSessionId(
  store: SessionStore,
  home: string,
  text: string,
): Promise<string> {
  if (store instanceof FileSessionStore) return resolveSessionId(home, text);
  checkText(text);
  const ids = new Set<string>();
  for (const { id } of await store.list()) {
    if (id === text) return id;
    if (id.startsWith(text)) ids.add(id);
  }
  return unique(text, ids, "in the session store");
}

function checkText(text: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(text))
    throw new UsageError(`invalid session id ${JSON.stringify(text)}`);
}

function unique(text: string, ids: Set<string>, where: string): string {
  if (ids.size === 1) return [...ids][0]!;
  if (ids.size === 0) throw new UsageError(`no session "${text}" ${where}; see tern sessions ls --all`);
  throw new UsageError(
    `session id "${text}" is ambiguous (${[...ids].slice(0, 4).join(", ")}${ids.size > 4 ? ", …" : ""}); type more of it`,
  );
}

/** SessionErrors as one-line CLI errors. */
export function sessionFailure(error: unknown): unknown {
  if (!(error instanceof SessionError)) return error;
  switch (error.code) {
    case "locked":
      return new CliError(
        `${error.message}; wait for that tern to finish, or fork the session (tern sessions fork ID)`,
      );
    case "not_found":
      return new UsageError(`${error.message}; see tern sessions ls --all`);
    case "invalid":
      return new UsageError(error.message);
    default:
      return new CliError(error.message);
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
