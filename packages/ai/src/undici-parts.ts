// The two parts of undici the streamed transport uses, `fetch` and `Agent`, imported from their
// own files instead of the package's index. The index also evaluates the mock agents, caches,
// WebSocket, EventSource and every other dispatcher: a third of undici's load time, paid at every
// `tern run`'s first model call for nothing. Same package, same version, same error semantics
// (the index's `fetch` only adds `Error.captureStackTrace` to what this one throws). The types
// of these two files are undici's own (undici-files.d.ts names them).
import AgentClass from "undici/lib/dispatcher/agent.js";
import fetchModule from "undici/lib/web/fetch/index.js";

export const Agent = AgentClass;
export type Agent = import("undici").Agent;
export const fetch = fetchModule.fetch;
