// V8 code caches for the bundle's chunks. Node 20 has no compile cache (module.enableCompileCache
// is Node 22), so a start pays V8's parse of every chunk it requires — ~60 ms of `tern run`'s
// start for 1.3 MB. The build writes each chunk's cache beside it (`<chunk>.v8cache`,
// scripts/code-cache.mjs); this hook compiles a chunk with it. A cache V8 rejects (another Node
// or V8 flags) is ignored by V8 itself and the chunk compiles as usual; a chunk with no cache
// goes the normal way. Only files under the bundle's own chunks/ are touched. TERN_STARTUP_TRACE=1
// names each cache V8 rejected.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import Module from "node:module";
import { basename, dirname } from "node:path";
import { constants, Script } from "node:vm";
import { traceStartup } from "./startup-trace.js";

/** The suffix the build gives each cache (CODE_CACHE_SUFFIX of scripts/code-cache.mjs). */
const CODE_CACHE_SUFFIX = ".v8cache";

type Compile = (this: Module, content: string, filename: string) => unknown;

let installedFor: string | undefined;

/**
 * From now on, files under `chunksDir` are compiled with the code cache beside them (once a
 * process). With `rewrite`, each chunk's cache is written again as the process exits, now holding
 * every function the process ran as well: the build's training run (scripts/train-code-caches.mjs).
 */
export function useCodeCaches(chunksDir: string, options: { rewrite?: boolean } = {}): void {
  if (installedFor !== undefined) return;
  installedFor = chunksDir;
  const ran = new Map<string, Script>();
  if (options.rewrite)
    process.once("exit", () => {
      for (const [filename, script] of ran) {
        // A start reading the cache meanwhile sees the old file or the new one, never half of one.
        const temp = `${filename}${CODE_CACHE_SUFFIX}.${process.pid}.tmp`;
        writeFileSync(temp, script.createCachedData());
        renameSync(temp, filename + CODE_CACHE_SUFFIX);
      }
    });
  const prototype = Module.prototype as unknown as { _compile: Compile };
  const compile = prototype._compile;
  prototype._compile = function compileWithCache(content, filename) {
    if (!filename.startsWith(chunksDir)) return compile.call(this, content, filename);
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(filename + CODE_CACHE_SUFFIX);
    } catch {
      if (!options.rewrite) return compile.call(this, content, filename);
    }
    const script = new Script(Module.wrap(content), {
      filename,
      cachedData,
      // The chunks keep import() for Node built-ins loaded on demand.
      importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (script.cachedDataRejected) traceStartup(`code cache rejected: ${basename(filename)}`);
    if (options.rewrite) ran.set(filename, script);
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(
      this.exports,
      this.exports,
      Module.createRequire(filename),
      this,
      filename,
      dirname(filename),
    );
  };
}
