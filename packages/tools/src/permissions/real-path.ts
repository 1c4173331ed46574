// The spellings of a path that path rules are matched against. The workspace root and the path are
// resolved to their real locations (symlinks followed; for a path that does not exist yet, its
// nearest existing ancestor), so `edit link/f.txt` with `link -> protected` is judged as
// `protected/f.txt`, and a root given through a symlink matches rules written with either spelling.

import { realpathSync } from "node:fs";
import path from "node:path";

export interface Root {
  /** The root as given, absolute. */
  alias: string;
  /** Its real path, when it exists. */
  real: string | undefined;
}

export function rootOf(root: string): Root {
  const alias = path.resolve(root);
  return { alias, real: realPath(alias) };
}

export interface PathSpellings {
  /** Root-relative (or absolute, when outside) spellings of where the path really leads. */
  real: string[];
  /** Spellings of the path as written: a deny rule also matches these. */
  written: string[];
}

/** POSIX spellings of `value` (relative to the root, or absolute) for matching rules. */
export function spellings(root: Root | undefined, value: string): PathSpellings {
  if (!root) {
    const plain = path.posix.normalize(value.split(path.sep).join("/"));
    return { real: [plain], written: [plain] };
  }
  const abs = path.resolve(root.alias, value);
  const written = relativeSpellings(root, abs);
  const real = realPath(abs);
  return { real: real === undefined ? written : relativeSpellings(root, real), written };
}

/** The root-relative path (under either spelling of the root) and the absolute ones. */
function relativeSpellings(root: Root, abs: string): string[] {
  const out = new Set<string>();
  for (const base of [root.real, root.alias]) {
    if (base === undefined) continue;
    const rel = path.relative(base, abs);
    if (rel === "") out.add(".");
    else if (!rel.startsWith("..") && !path.isAbsolute(rel)) {
      out.add(toPosix(rel));
      out.add(toPosix(path.join(root.alias, rel)));
      if (root.real) out.add(toPosix(path.join(root.real, rel)));
    }
  }
  if (out.size === 0) out.add(toPosix(abs));
  return [...out];
}

/** The real path of `abs`, following symlinks of its nearest existing ancestor; undefined if none resolves. */
function realPath(abs: string): string | undefined {
  const missing: string[] = [];
  let current = abs;
  for (;;) {
    try {
      return path.join(realpathSync(current), ...missing);
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return undefined;
      missing.unshift(path.basename(current));
      current = parent;
    }
  }
}

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}
