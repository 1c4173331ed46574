// The V8 code cache of one bundle file, written beside it by the build and used by
// src/code-cache.ts at start. The cache holds what V8 compiles without running the file (its top
// level and eagerly compiled functions): enough to skip the parse of every chunk a command
// requires. It is made by the Node that builds, for that Node; another one rejects it and parses.
import Module from "node:module";
import { Script } from "node:vm";

/** Beside each chunk, its code cache under this suffix (src/code-cache.ts reads the same). */
export const CODE_CACHE_SUFFIX = ".v8cache";

/** The code cache of `text`, compiled as the CommonJS loader wraps a file at `filename`. */
export function codeCacheOf(text, filename) {
  return new Script(Module.wrap(text), { filename }).createCachedData();
}
