// Opens an MCP session with one server through the SDK's client and transports: stdio for local
// servers, streamable HTTP for remote ones with the old HTTP+SSE transport as the fallback when
// the server refuses streamable HTTP (a 4xx, as the MCP spec's backwards-compatibility advice says).
// A remote server the user logged in to (`tern mcp login`) gets our OAuth provider, through which
// the SDK's transports send the bearer token and refresh it on 401.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig, RemoteServerConfig, StdioServerConfig } from "./config.js";
import { type McpOAuthOptions, McpOAuthProvider } from "./oauth-provider.js";

export const CLIENT_INFO = { name: "tern", version: "0.1.0" };
/** The last stderr a stdio server wrote, kept for error messages. */
const STDERR_TAIL_CHARS = 2_000;

export interface OpenedSession {
  client: Client;
  /** "stdio", "http" or "sse" (after the fallback). */
  transport: "stdio" | "http" | "sse";
  /** The tail of a stdio server's stderr (empty for remote servers). */
  stderr: () => string;
  /** The MCP protocol version the handshake settled on (the newest both sides speak). */
  protocolVersion: string;
}

/** A stdio server that did not come up, with what it wrote to stderr (often the reason). */
export class SessionStartError extends Error {
  override name = "SessionStartError";
  constructor(
    override readonly cause: unknown,
    readonly stderr: string,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

export interface OpenOptions {
  /** Ceiling for the initialize handshake. */
  timeoutMs: number;
  /** Sets up the client before it connects (notification handlers). */
  setup: (client: Client) => void;
  /** The server's name, which keys its OAuth credentials. */
  name: string;
  /** Where OAuth credentials live; without it remote servers get only their configured headers. */
  oauth?: McpOAuthOptions;
}

export async function openSession(config: McpServerConfig, options: OpenOptions): Promise<OpenedSession> {
  if (config.type === "stdio") return openStdio(config, options);
  const provider = await oauthProvider(config, options);
  const sse = async (): Promise<OpenedSession> => ({
    ...(await connect(sseTransport(config, provider), options)),
    transport: "sse",
    stderr: none,
  });
  if (config.type === "sse") return sse();
  try {
    return { ...(await connect(httpTransport(config, provider), options)), transport: "http", stderr: none };
  } catch (error) {
    if (!refusesStreamableHttp(error)) throw error;
    return sse();
  }
}

/** Our OAuth provider for a server with stored tokens (a server never logged in to keeps its headers alone). */
async function oauthProvider(
  config: RemoteServerConfig,
  options: OpenOptions,
): Promise<McpOAuthProvider | undefined> {
  if (!options.oauth) return undefined;
  const stored = await options.oauth.store.read(options.name, config.url);
  return stored.tokens ? new McpOAuthProvider(options.name, config.url, options.oauth) : undefined;
}

async function openStdio(config: StdioServerConfig, options: OpenOptions): Promise<OpenedSession> {
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    env: { ...getDefaultEnvironment(), ...config.env },
    ...(config.cwd ? { cwd: config.cwd } : {}),
    stderr: "pipe",
  });
  let tail = "";
  // The stream exists before start(): read it from the first byte.
  transport.stderr?.on("data", (chunk: Buffer) => {
    tail = (tail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
  });
  try {
    const connected = await connect(transport, options);
    return { ...connected, transport: "stdio", stderr: () => tail.trim() };
  } catch (error) {
    throw new SessionStartError(error, tail.trim());
  }
}

/**
 * Initializes over `transport`. The SDK's client asks for LATEST_PROTOCOL_VERSION and accepts any
 * of SUPPORTED_PROTOCOL_VERSIONS in the answer, but keeps the outcome to itself; it hands it to
 * `transport.setProtocolVersion` (HTTP transports send it as a header), so that is where we read it.
 */
async function connect(
  transport: Transport,
  options: OpenOptions,
): Promise<{ client: Client; protocolVersion: string }> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  options.setup(client);
  let protocolVersion = "";
  const forward = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version) => {
    protocolVersion = version;
    forward?.(version);
  };
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return { client, protocolVersion };
}

function httpTransport(config: RemoteServerConfig, authProvider?: McpOAuthProvider): Transport {
  return new StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: { headers: config.headers },
    ...(authProvider ? { authProvider } : {}),
  });
}

function sseTransport(config: RemoteServerConfig, authProvider?: McpOAuthProvider): Transport {
  return new SSEClientTransport(new URL(config.url), {
    requestInit: { headers: config.headers },
    ...(authProvider ? { authProvider } : {}),
  });
}

/** A 4xx other than 401/403 means "no streamable HTTP here", not "you may not". */
function refusesStreamableHttp(error: unknown): boolean {
  if (!(error instanceof StreamableHTTPError)) return false;
  const code = error.code ?? 0;
  return code >= 400 && code < 500 && code !== 401 && code !== 403;
}

/** The HTTP status a remote transport failed with, if it did. */
export function httpStatus(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    return error.code !== undefined && error.code > 0 ? error.code : undefined;
  }
  return undefined;
}

function none(): string {
  return "";
}
