// What `tern serve` takes besides the agent options every command shares: where it listens, who
// may talk to it (token, allowed origins), where its sessions may work (--cwd and --allow-root),
// and its limits. Validated here, before anything listens, as usage errors (exit 2).
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import {
  DEFAULT_MAX_SESSION_STREAMS,
  isLoopback,
  MAX_BATCH_ITEMS,
  MAX_BODY_BYTES,
  MAX_MESSAGE_BYTES,
} from "@tern/server";
import { AGENT_OPTIONS, listOption, type OptionSpecs, type OptionValues, stringOption } from "../cli/args.js";
import { UsageError } from "../cli/errors.js";
import { checkDirectory } from "./settings.js";
import { nonEmpty, positiveInteger } from "./values.js";

const DEFAULT_PORT = 7878;
/** How long a permission question waits for an answer before it is denied. */
export const DEFAULT_PERMISSION_TIMEOUT_S = 300;
const DEFAULT_MAX_CONNECTIONS = 256;
const DEFAULT_MAX_RUNS = 4;
/** HTTP: the whole request (headers and body) must arrive within this many seconds. */
const DEFAULT_REQUEST_TIMEOUT_S = 30;
/** HTTP: the request line and headers within this (never more than the request timeout). */
const DEFAULT_HEADERS_TIMEOUT_S = 10;
/** JSON-RPC over TCP: a connection without a session that stays quiet this long is closed. */
const DEFAULT_RPC_IDLE_TIMEOUT_S = 300;
/** HTTP: SSE streams open at once across sessions (half of the default connection cap). */
const DEFAULT_MAX_STREAMS = 128;

const { session: _resumeIsNotServed, ...SERVED_AGENT_OPTIONS } = AGENT_OPTIONS;

/** The options of `tern serve`: the agent's (but --session) and the server's own. */
export const SERVE_OPTIONS: OptionSpecs = {
  ...SERVED_AGENT_OPTIONS,
  stdio: { type: "boolean" },
  "rpc-port": { type: "string" },
  port: { type: "string" },
  host: { type: "string" },
  token: { type: "string" },
  home: { type: "string" },
  "allow-origin": { type: "string", multiple: true },
  "allow-root": { type: "string", multiple: true },
  "permission-timeout": { type: "string" },
  "max-connections": { type: "string" },
  "max-runs": { type: "string" },
  "request-timeout": { type: "string" },
  "headers-timeout": { type: "string" },
  "rpc-idle-timeout": { type: "string" },
  "max-body": { type: "string" },
  "max-streams": { type: "string" },
  "max-session-streams": { type: "string" },
  "max-message": { type: "string" },
  "max-batch": { type: "string" },
  // What the official Copilot SDK passes when it starts "the CLI" itself: with --headless,
  // --port is the JSON-RPC port (default: any free one) and the rest is ignored.
  headless: { type: "boolean" },
  "no-auto-update": { type: "boolean" },
  "no-auto-login": { type: "boolean" },
  "log-level": { type: "string" },
  "auth-token-env": { type: "string" },
  "session-idle-timeout": { type: "string" },
  remote: { type: "boolean" },
};

export interface ServeSettings {
  stdio: boolean;
  /** HTTP + SSE port. */
  port?: number;
  /** JSON-RPC TCP port. */
  rpcPort?: number;
  host?: string;
  token?: string;
  /** $TERN_HOME for this server (--home). */
  home?: string;
  /** Origins (scheme://host[:port]) whose pages may call the HTTP API. */
  allowOrigins: string[];
  /** Real paths of the extra directories a client's cwd may be in (besides --cwd). */
  allowRoots: string[];
  permissionTimeoutMs: number;
  maxConnections: number;
  maxRuns: number;
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  rpcIdleTimeoutMs: number;
  /** HTTP: the largest request body, in bytes. */
  maxBodyBytes: number;
  /** HTTP: SSE streams open at once, across sessions and on one. */
  maxStreams: number;
  maxSessionStreams: number;
  /** JSON-RPC: the largest message, in bytes, and the most items in a batch. */
  maxMessageBytes: number;
  maxBatchItems: number;
}

export function resolveServeSettings(
  values: OptionValues,
  environment: { env: NodeJS.ProcessEnv; cwd: string },
): ServeSettings {
  const { env, cwd } = environment;
  const portFlag = stringOption(values, "port");
  const rpcFlag = stringOption(values, "rpc-port");
  let port = portFlag !== undefined ? portNumber(portFlag, "--port") : undefined;
  let rpcPort = rpcFlag !== undefined ? portNumber(rpcFlag, "--rpc-port") : undefined;
  const stdio = values.stdio === true;
  const headless = values.headless === true;
  if (headless) {
    rpcPort ??= stdio ? port : (port ?? 0);
    port = undefined;
  }
  if (port === undefined && rpcPort === undefined && !stdio && !headless) port = DEFAULT_PORT;
  const settings: ServeSettings = {
    stdio,
    allowOrigins: listOption(values, "allow-origin").map(origin),
    allowRoots: listOption(values, "allow-root").map((dir) => realDirectory(resolve(cwd, dir))),
    permissionTimeoutMs:
      (positiveInteger("--permission-timeout", stringOption(values, "permission-timeout")) ??
        DEFAULT_PERMISSION_TIMEOUT_S) * 1000,
    maxConnections:
      positiveInteger("--max-connections", stringOption(values, "max-connections")) ??
      DEFAULT_MAX_CONNECTIONS,
    maxRuns: positiveInteger("--max-runs", stringOption(values, "max-runs")) ?? DEFAULT_MAX_RUNS,
    ...requestTimeouts(values),
    rpcIdleTimeoutMs:
      (positiveInteger("--rpc-idle-timeout", stringOption(values, "rpc-idle-timeout")) ??
        DEFAULT_RPC_IDLE_TIMEOUT_S) * 1000,
    ...sizeLimits(values),
  };
  if (port !== undefined) settings.port = port;
  if (rpcPort !== undefined) settings.rpcPort = rpcPort;
  const host = stringOption(values, "host");
  if (host !== undefined) settings.host = host;
  const token =
    stringOption(values, "token") ??
    nonEmpty(env.TERN_SERVER_TOKEN) ??
    (headless && !stdio ? nonEmpty(env.COPILOT_CONNECTION_TOKEN) : undefined);
  if (token !== undefined) settings.token = token;
  if (host !== undefined && !isLoopback(host) && token === undefined && (port ?? rpcPort) !== undefined)
    throw new UsageError(
      `serve: binding to ${host} (not loopback) requires a token (--token or TERN_SERVER_TOKEN)`,
    );
  const home = stringOption(values, "home");
  if (home !== undefined) settings.home = resolve(cwd, home);
  return settings;
}

/** The size and count limits: each a positive integer flag, or its default. */
function sizeLimits(values: OptionValues) {
  const limit = (flag: string, fallback: number) =>
    positiveInteger(`--${flag}`, stringOption(values, flag)) ?? fallback;
  return {
    maxBodyBytes: limit("max-body", MAX_BODY_BYTES),
    maxStreams: limit("max-streams", DEFAULT_MAX_STREAMS),
    maxSessionStreams: limit("max-session-streams", DEFAULT_MAX_SESSION_STREAMS),
    maxMessageBytes: limit("max-message", MAX_MESSAGE_BYTES),
    maxBatchItems: limit("max-batch", MAX_BATCH_ITEMS),
  };
}

/** --request-timeout and --headers-timeout; the headers' must fit in the request's. */
function requestTimeouts(values: OptionValues): { requestTimeoutMs: number; headersTimeoutMs: number } {
  const request =
    positiveInteger("--request-timeout", stringOption(values, "request-timeout")) ??
    DEFAULT_REQUEST_TIMEOUT_S;
  const headersFlag = positiveInteger("--headers-timeout", stringOption(values, "headers-timeout"));
  if (headersFlag !== undefined && headersFlag > request)
    throw new UsageError(
      `--headers-timeout (${headersFlag}) must not exceed --request-timeout (${request}): the headers are part of the request`,
    );
  const headers = headersFlag ?? Math.min(DEFAULT_HEADERS_TIMEOUT_S, request);
  return { requestTimeoutMs: request * 1000, headersTimeoutMs: headers * 1000 };
}

export function portNumber(text: string, flag: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > 65535)
    throw new UsageError(`${flag} must be a port number from 0 to 65535 (got ${JSON.stringify(text)})`);
  return value;
}

function origin(text: string): string {
  try {
    const url = new URL(text);
    if ((url.protocol === "http:" || url.protocol === "https:") && url.pathname === "/" && !url.search)
      return url.origin;
  } catch {}
  throw new UsageError(
    `--allow-origin must be an origin such as http://localhost:3000 (got ${JSON.stringify(text)})`,
  );
}

function realDirectory(path: string): string {
  checkDirectory(path, "--allow-root");
  return realpathSync(path);
}
