export { type CreateOptions, Engine, engineError, type OpenOptions } from "./engine/engine.js";
export { Journal, type JournalListener } from "./engine/journal.js";
export { modelCatalog, registryCatalog } from "./engine/models.js";
export {
  type HostedSession,
  inProcessHost,
  type PermissionRequestEvent,
  type RunHost,
} from "./engine/run-host.js";
export { type SendMode, ServerSession, type ServerSessionInit } from "./engine/server-session.js";
export { sessionInfo } from "./engine/session-info.js";
export { authorized, checkBind, isLoopback } from "./http/auth.js";
export { capConnections, DEFAULT_RESERVED_CONNECTIONS } from "./http/connection-cap.js";
export { RequestGuard } from "./http/guard.js";
export { HttpError, MAX_BODY_BYTES, optionalString, readJson, sendError, sendJson } from "./http/request.js";
export { type HttpServer, type HttpServerOptions, startServer } from "./http/server.js";
export { type FrameId, formatEventId, parseEventId, SSE_HEADERS } from "./http/sse-stream.js";
export { CONTENT_SECURITY_POLICY, StaticSite } from "./http/static.js";
export { DEFAULT_MAX_SESSION_STREAMS, DEFAULT_MAX_STREAMS, StreamCap } from "./http/stream-cap.js";
export { type CopilotEvent, CopilotStream, copilotHistory } from "./mappings/copilot-envelope.js";
export { type CopilotEventBody, CopilotMapper } from "./mappings/copilot-events.js";
export { type FimChannel, FimMapper, type SseFrame } from "./mappings/fim-sse.js";
export { encodeFrame, type Frame, FrameDecoder, MAX_MESSAGE_BYTES } from "./rpc/framer.js";
export { JsonRpcPeer, MAX_BATCH_ITEMS, type PeerLimits, RpcError } from "./rpc/peer.js";
export { type RequestId, RequestIdSniffer } from "./rpc/request-id.js";
export { type JsonRpcServeOptions, type JsonRpcServer, serveConnection, serveJsonRpc } from "./rpc/serve.js";
export { type Served, type ServeOptions, serve } from "./serve.js";
export * from "./types.js";
export { PROTOCOL_VERSION, SERVER_VERSION } from "./version.js";
