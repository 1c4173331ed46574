// .gitignore handling for tree walks: every directory's .gitignore applies to the paths below it,
// deeper files override shallower ones (so `!keep.log` in a subdirectory re-includes a file).

import { readFile } from "node:fs/promises";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

/** Directories never walked into: version control data and installed dependencies. */
export const ALWAYS_SKIPPED = new Set([".git", "node_modules"]);

interface Layer {
  /** Root-relative POSIX directory the rules belong to ("" for the root). */
  base: string;
  rules: Ignore;
}

export class IgnoreStack {
  private constructor(private readonly layers: readonly Layer[]) {}

  static empty(): IgnoreStack {
    return new IgnoreStack([]);
  }

  /** The stack for `dir` (root-relative POSIX), with .gitignore files of it and its ancestors loaded. */
  static async forDirectory(root: string, dir: string): Promise<IgnoreStack> {
    let stack = IgnoreStack.empty();
    const parts = dir === "." || dir === "" ? [] : dir.split("/");
    stack = await stack.enter(root, "");
    for (let i = 1; i <= parts.length; i++) stack = await stack.enter(root, parts.slice(0, i).join("/"));
    return stack;
  }

  /** The stack for a subdirectory: adds its .gitignore, if it has one. */
  async enter(root: string, dir: string): Promise<IgnoreStack> {
    let text: string;
    try {
      text = await readFile(path.join(root, dir, ".gitignore"), "utf8");
    } catch {
      return this;
    }
    return new IgnoreStack([...this.layers, { base: dir, rules: ignore().add(text) }]);
  }

  /** `rel` is root-relative POSIX. */
  ignores(rel: string, isDirectory: boolean): boolean {
    let ignored = false;
    for (const layer of this.layers) {
      if (layer.base !== "" && !rel.startsWith(`${layer.base}/`)) continue;
      const sub = layer.base === "" ? rel : rel.slice(layer.base.length + 1);
      const result = layer.rules.test(isDirectory ? `${sub}/` : sub);
      if (result.ignored) ignored = true;
      else if (result.unignored) ignored = false;
    }
    return ignored;
  }
}
