// The default SessionStore: <home>/sessions/<encoded cwd>/<id>.jsonl, the home being the one the
// host names (the CLI: $TERN_HOME), else ~/.tern. Grouping by working directory keeps `list` for
// one project cheap.
import { existsSync, statSync, unlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { randomUUID, sha256Hex } from "./crypto.js";
import { readdirOrEmpty } from "./dir-entries.js";
import { SessionError } from "./errors.js";
import {
  createFileSession,
  type FileSessionOptions,
  loadFileSession,
  openFileSession,
} from "./file-session.js";
import { forkSession } from "./fork.js";
import { clearStaleLock, liveLockOwner } from "./lock.js";
import type { Session } from "./session.js";
import { indexSessionDirectory, type SessionUsage } from "./session-index.js";
import type {
  CreateSessionOptions,
  ForkOptions,
  SessionHeader,
  SessionStore,
  SessionSummary,
  StoreHealth,
} from "./types.js";
import { SESSION_FORMAT_VERSION } from "./types.js";

export interface FileSessionStoreOptions extends FileSessionOptions {
  /** tern's home folder. Default: ternHome(). */
  home?: string;
}

/** tern's home when the host names none: ~/.tern. The library reads no TERN_HOME; the CLI does. */
export function ternHome(): string {
  return join(homedir(), ".tern");
}

/** A readable, collision-free directory name for a working directory. */
export function encodeCwd(cwd: string): string {
  const readable = cwd
    .replace(/[^A-Za-z0-9._]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(-60);
  const hash = sha256Hex(cwd).slice(0, 8);
  return `${readable || "root"}-${hash}`;
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export class FileSessionStore implements SessionStore {
  readonly root: string;
  private readonly paths = new Map<string, string>();

  constructor(private readonly options: FileSessionStoreOptions = {}) {
    this.root = join(options.home ?? ternHome(), "sessions");
  }

  /** Where a session of `cwd` with `id` lives. */
  pathFor(cwd: string, id: string): string {
    return join(this.root, encodeCwd(cwd), `${checkId(id)}.jsonl`);
  }

  async create(options: CreateSessionOptions = {}): Promise<Session> {
    const cwd = resolve(options.cwd ?? process.cwd());
    const id = (this.options.newSessionId ?? randomUUID)();
    const header: SessionHeader = {
      type: "session",
      version: SESSION_FORMAT_VERSION,
      id,
      created: new Date((this.options.now ?? Date.now)()).toISOString(),
      cwd,
      ...(options.parentSession ? { parentSession: options.parentSession } : {}),
      ...(options.settings ? { settings: { ...options.settings } } : {}),
    };
    const path = this.pathFor(cwd, id);
    const session = createFileSession(path, header, this.options);
    this.paths.set(id, path);
    if (options.name !== undefined) session.setName(options.name);
    return session;
  }

  async open(id: string): Promise<Session> {
    return openFileSession(this.find(id), this.options);
  }

  async load(id: string): Promise<Session> {
    return loadFileSession(this.find(id), this.options);
  }

  async list(filter: { cwd?: string } = {}): Promise<SessionSummary[]> {
    return (await this.usage(filter)).map(({ summary }) => summary);
  }

  /**
   * Like `list`, with each session's model-call usage from the index (`tern usage`): no file is
   * read unless it changed since it was last indexed. `usage` is absent for an unreadable file.
   */
  async usage(filter: { cwd?: string } = {}): Promise<SessionUsage[]> {
    const dirs = filter.cwd !== undefined ? [encodeCwd(resolve(filter.cwd))] : this.directories();
    const out: SessionUsage[] = [];
    for (const dir of dirs) {
      // The directory's index has each file's summary; only new or grown files are read.
      for (const entry of indexSessionDirectory(join(this.root, dir))) {
        if (entry.summary.path) this.paths.set(entry.summary.id, entry.summary.path);
        out.push(entry);
      }
    }
    // ISO timestamps order as plain strings; localeCompare's collation costs ~10 µs a pair.
    return out.sort(({ summary: a }, { summary: b }) =>
      a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : 0,
    );
  }

  /** Removes the session file; refuses while a live process writes it. */
  async delete(id: string): Promise<void> {
    const path = this.find(id);
    const owner = liveLockOwner(path);
    if (owner)
      throw new SessionError(
        "locked",
        `${path}: cannot delete, pid ${owner.pid} is writing this session`,
        path,
      );
    clearStaleLock(path);
    unlinkSync(path);
    this.paths.delete(id);
  }

  /** A new session whose header points to `id`, holding a copy of its path up to `entryId`. */
  async fork(id: string, options: ForkOptions = {}): Promise<Session> {
    return forkSession(this, id, options);
  }

  async health(): Promise<StoreHealth> {
    return { kind: "file", ok: true };
  }

  private find(id: string): string {
    checkId(id);
    const cached = this.paths.get(id);
    if (cached && existsSync(cached)) return cached;
    for (const dir of this.directories()) {
      const path = join(this.root, dir, `${id}.jsonl`);
      if (existsSync(path)) {
        this.paths.set(id, path);
        return path;
      }
    }
    throw new SessionError("not_found", `no session "${id}" under ${this.root}`);
  }

  private directories(): string[] {
    return readdirOrEmpty(this.root).filter((name) => {
      try {
        return statSync(join(this.root, name)).isDirectory();
      } catch {
        return false;
      }
    });
  }
}

/** Session ids come from clients: letters, digits, `.`, `_`, `-`; never a path. */
export function checkId(id: string): string {
  // Ids come from clients: never let one walk out of the store.
  if (!SAFE_ID.test(id)) throw new SessionError("invalid", `invalid session id ${JSON.stringify(id)}`);
  return id;
}
