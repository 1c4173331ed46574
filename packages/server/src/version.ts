/** This server's version, reported by `status.get`, `connect` and `/healthz`. */
export const SERVER_VERSION = "0.1.0";

/** The Copilot SDK protocol version tern speaks (the SDK accepts 3 and up to its own). */
export const PROTOCOL_VERSION = 3;
