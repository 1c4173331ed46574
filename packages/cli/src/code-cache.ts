// V8 code caches for the bundle's chunks. Node 20 has no compile cache (module.enableCompileCache
// is Node 22), so a start pays V8's parse of every chunk it requires — ~60 ms of `tern run`'s
// start for 1.3 MB. The build writes each chunk's cache beside it (`<chunk>.v8cache`,
// scripts/code-cache.mjs); this hook compiles a chunk with it. A cache V8 rejects (another Node
// or V8 flags) is ignored by V8 itself and the chunk compiles as usual; a chunk with no cache
// goes the normal way. Only files under the bundle's own chunks/ are touched. TERN_STARTUP_TRACE=1
// names each cache V8 rejected.
import { readFileSync } from "node:fs";
import Module from "node:module";
import { basename, dirname } from "node:path";
import { constants, Script } from "node:vm";
import { traceStartup } from "./startup-trace.js";

/** The suffix the build gives each cache (CODE_CACHE_SUFFIX of scripts/code-cache.mjs). */
const CODE_CACHE_SUFFIX = ".v8cache";

type Compile = (this: Module, content: string, filename: string) => unknown;

let installedFor: string | undefined;

/** From now on, files under `chunksDir` are compiled with the code cache beside them (once a process). */
export function useCodeCaches(chunksDir: string): void {
  if (installedFor !== undefined) return;
  installedFor = chunksDir;
  const prototype = Module.prototype as unknown as { _compile: Compile };
  const compile = prototype._compile;
  prototype._compile = function compileWithCache(content, filename) {
    if (!filename.startsWith(chunksDir)) return compile.call(this, content, filename);
    let cachedData: Buffer;
    try {
      cachedData = readFileSync(filename + CODE_CACHE_SUFFIX);
    } catch {
      return compile.call(this, content, filename);
    }
    const script = new Script(Module.wrap(content), {
      filename,
      cachedData,
      // The chunks keep import() for Node built-ins loaded on demand.
      importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (script.cachedDataRejected) traceStartup(`code cache rejected: ${basename(filename)}`);
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
