export { PROTOCOL_VERSION, TernClient } from "./client.js";
export { RpcConnection, RpcRemoteError } from "./rpc.js";
export { TernSession } from "./session.js";
export * from "./types.js";
