// @tern/server's public surface: serve() and the engine behind it, the run-host seam a cluster
// plugs into, the HTTP and JSON-RPC front doors, and the few limits and framing pieces the CLI's
// own servers reuse. Routes, guards, caps and the Copilot mapping are internals of serve().
export { type CreateOptions, Engine, type OpenOptions } from "./engine/engine.js";
export { Journal } from "./engine/journal.js";
export { modelCatalog, registryCatalog } from "./engine/models.js";
export {
  type HostedSession,
  inProcessHost,
  type PermissionRequestEvent,
  type RunHost,
} from "./engine/run-host.js";
export { type SendMode, ServerSession, type ServerSessionInit } from "./engine/server-session.js";
export { sessionInfo } from "./engine/session-info.js";
export { isLoopback } from "./http/auth.js";
export { MAX_BODY_BYTES } from "./http/request.js";
export { type HttpServer, type HttpServerOptions, startServer } from "./http/server.js";
export { DEFAULT_MAX_SESSION_STREAMS } from "./http/stream-cap.js";
export { type FimChannel, FimMapper, type SseFrame } from "./mappings/fim-sse.js";
export { encodeFrame, FrameDecoder, MAX_MESSAGE_BYTES } from "./rpc/framer.js";
export { MAX_BATCH_ITEMS } from "./rpc/peer.js";
export { type RequestId, RequestIdSniffer } from "./rpc/request-id.js";
export { type JsonRpcServeOptions, type JsonRpcServer, serveJsonRpc } from "./rpc/serve.js";
export { type Served, type ServeOptions, serve } from "./serve.js";
export {
  type AgentConfig,
  type AgentSetup,
  type ClientAttachment,
  EngineError,
  type EngineOptions,
  type ModelCatalog,
  type PermissionAnswer,
  type ServerEvent,
  type SessionInfo,
  type SessionServerEvent,
} from "./types.js";
