// undici (~770 KB of CommonJS) for the cassettes, imported when a cassette first sends or serves a
// request rather than when a command starts: every command that reads settings reaches the
// cassette modules, and only --record and --replay use them. A dynamic import (not a require, which
// the bundler would inline) keeps undici in a chunk of its own, the one the streamed transport
// (sse-transport.ts) loads with the provider at the first model call.

const load = async () => {
  const module = await import("undici");
  // The bundle's CommonJS interop gives only `default` (esbuild's does); Node gives both.
  return module.default ?? module;
};

let undici: ReturnType<typeof load> | undefined;

/** The `undici` package, imported once at its first use. */
export function importUndici(): ReturnType<typeof load> {
  undici ??= load();
  return undici;
}
