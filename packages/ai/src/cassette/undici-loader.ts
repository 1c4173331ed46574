// undici (~770 KB of CommonJS) for the cassettes, required when a cassette is opened rather than
// when a command starts: every command that reads settings reaches the cassette modules, and only
// --record and --replay use them. The streamed transport (sse-transport.ts) imports undici itself,
// in the provider chunks loaded at the first model call.
import { createRequire } from "node:module";

let undici: typeof import("undici") | undefined;

/** The `undici` package, required once at its first use. */
export function loadUndici(): typeof import("undici") {
  undici ??= createRequire(import.meta.url)("undici") as typeof import("undici");
  return undici;
}
