// @tern/sdk's public surface: TernClient (spawn or connect to `tern serve`), its TernSession, the
// error a server's refusal becomes, and the wire's types. The JSON-RPC connection is internal.
export { TernClient } from "./client.js";
export { RpcRemoteError } from "./rpc.js";
export { TernSession } from "./session.js";
export * from "./types.js";
