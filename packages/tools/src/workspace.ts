// Confines every path a tool touches to the workspace root. A path is accepted only when both its
// spelling and its real location (symlinks followed) stay inside the root; for a file that does not
// exist yet, the real location of its nearest existing ancestor decides. It also holds what the
// permission rules hide from the read tools (`read(.env*)` denied: grep and glob skip those files),
// and refuses files with several hard links, whose other names may be outside the root.

import { realpathSync, type Stats, statSync } from "node:fs";
import { lstat, realpath } from "node:fs/promises";
import path from "node:path";

export type Resolution =
  | {
      ok: true;
      /** Absolute path to operate on (symlinks inside the root resolved). */
      abs: string;
      /** Root-relative POSIX path for display ("." for the root). */
      rel: string;
      /** False when nothing exists at the path yet. */
      exists: boolean;
    }
  | { ok: false; error: string };

/** Says whether a file (absolute real path) must not be shown to the model; set by permission rules. */
export type ReadGuard = (abs: string) => boolean;

export interface WorkspaceOptions {
  /** Let the file tools open files with several hard links. Default false (see `checkLinks`). */
  allowHardLinks?: boolean;
}

export class Workspace {
  /** The root with symlinks resolved; every real path must be inside it. */
  readonly root: string;
  /** The root as the caller spelled it (absolute), so absolute paths using that spelling work. */
  readonly alias: string;
  private readonly hiders: ReadGuard[] = [];

  private constructor(
    root: string,
    alias: string,
    private readonly options: WorkspaceOptions,
  ) {
    this.root = root;
    this.alias = alias;
  }

  /** Throws when the root does not exist or is not a directory: a setup error, not a model error. */
  static open(root: string, options: WorkspaceOptions = {}): Workspace {
    const alias = path.resolve(root);
    const real = realpathSync(alias);
    if (!statSync(real).isDirectory()) throw new Error(`workspace root ${alias} is not a directory`);
    return new Workspace(real, alias, options);
  }

  /** Hides files from the read tools while `hides` says so; returns a function that removes it. */
  hideFromReads(hides: ReadGuard): () => void {
    this.hiders.push(hides);
    return () => {
      const at = this.hiders.indexOf(hides);
      if (at !== -1) this.hiders.splice(at, 1);
    };
  }

  /** True when a permission rule keeps this file's content from the model. */
  hidden(abs: string): boolean {
    return this.hiders.some((hides) => hides(abs));
  }

  /**
   * An error text for a regular file with more than one hard link, else undefined. Another name of
   * the same file may be outside the root (a link made by bash), and finding it would mean scanning
   * the whole disk, so such files are refused unless the workspace allows hard links.
   */
  checkLinks(info: Stats, rel: string): string | undefined {
    if (this.options.allowHardLinks || !info.isFile() || info.nlink <= 1) return undefined;
    return `${rel} has ${info.nlink} hard links; another of its names may be outside the workspace, so the file tools do not open it. Copy it (cp) to work on it, or start tern with hard links allowed.`;
  }

  /** Root-relative POSIX path of an absolute path inside the root. */
  relative(abs: string): string {
    const rel = path.relative(this.root, abs);
    return rel === "" ? "." : rel.split(path.sep).join("/");
  }

  async resolve(input: string): Promise<Resolution> {
    if (input.includes("\0"))
      return { ok: false, error: `Path ${JSON.stringify(input)} contains a NUL byte.` };
    const spelled = input.trim() === "" ? "." : input;
    let abs = path.isAbsolute(spelled) ? path.resolve(spelled) : path.resolve(this.root, spelled);
    if (path.isAbsolute(spelled) && isInside(this.alias, abs))
      abs = path.join(this.root, path.relative(this.alias, abs));
    if (!isInside(this.root, abs)) {
      return { ok: false, error: `${quote(input)} is outside the workspace root (${this.root}). ${HINT}` };
    }

    // Walk up to the nearest entry that exists and follow its symlinks.
    let existing = abs;
    const missing: string[] = [];
    for (;;) {
      const kind = await entryKind(existing);
      if (kind === "present") break;
      if (kind === "dangling") {
        return {
          ok: false,
          error: `${quote(input)} goes through a symlink whose target does not exist (${this.relative(existing)}); it is refused because its target cannot be checked. ${HINT}`,
        };
      }
      missing.unshift(path.basename(existing));
      existing = path.dirname(existing);
    }
    const real = await realpath(existing);
    if (!isInside(this.root, real)) {
      return {
        ok: false,
        error: `${quote(input)} resolves through a symlink to ${real}, which is outside the workspace root (${this.root}). ${HINT}`,
      };
    }
    const target = path.join(real, ...missing);
    return { ok: true, abs: target, rel: this.relative(abs), exists: missing.length === 0 };
  }

  /** True when `abs` (an entry found while walking the tree) really lives inside the root. */
  async contains(abs: string): Promise<boolean> {
    try {
      return isInside(this.root, await realpath(abs));
    } catch {
      return false;
    }
  }
}

const HINT = "Use a path inside the workspace.";

function quote(input: string): string {
  return `Path ${JSON.stringify(input)}`;
}

export function isInside(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
}

/** A path as tern shows it: relative to `root` (POSIX, "." for the root) when inside it, else as given. */
export function displayPath(target: string, root?: string): string {
  if (!root) return target;
  const abs = path.resolve(root, target);
  if (!isInside(root, abs)) return target;
  const rel = path.relative(root, abs);
  return rel === "" ? "." : rel.split(path.sep).join("/");
}

async function entryKind(abs: string): Promise<"present" | "missing" | "dangling"> {
  try {
    const stat = await lstat(abs);
    if (!stat.isSymbolicLink()) return "present";
  } catch {
    return "missing";
  }
  try {
    await realpath(abs);
    return "present";
  } catch {
    return "dangling";
  }
}
