// `tern serve`: the agent of `tern run` behind HTTP + SSE (--port) and JSON-RPC (--rpc-port,
// --stdio), configured like run and chat. Parse, validate (model, key, flags: exit 2 before
// anything listens), build the engine, listen, and print the lines clients wait for:
// "http listening on <url>" and "listening on port <n>" (the Copilot CLI's line for the JSON-RPC
// port), on stdout, or on stderr under --stdio, where stdout carries the protocol; then the web
// page's address ("open <url>/ in a browser") when the bundle carries the page. Resolves with
// 0 once a signal or a client's shutdown request stopped the server.
import { type Served, serve } from "@tern/server";
import { createSandbox, describeSandbox, sandboxWarning } from "@tern/tools";
import { parseCommandArgs } from "../cli/args.js";
import { type ExitCode, UsageError } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { CLUSTER_OPTIONS, resolveClusterSettings } from "../config/cluster-options.js";
import { chooseModel, createRegistry, ensureConfiguredKey } from "../config/model.js";
import { resolveServeSettings, SERVE_OPTIONS, type ServeSettings } from "../config/serve-settings.js";
import { helpFor, wantsHelp } from "../help.js";
import { replaysOffline } from "../runtime/cassette.js";
import { bashSandbox } from "../runtime/coding-agent.js";
import { openMcp } from "../runtime/mcp.js";
import { servedEngineOptions, servedSecrets } from "../runtime/served.js";
import { webLine, webRoot } from "../runtime/web-root.js";
import { commandContext } from "./shared.js";

export async function serveCommand(argv: string[], io: Io): Promise<ExitCode> {
  const { values } = parseCommandArgs("serve", argv, { ...SERVE_OPTIONS, ...CLUSTER_OPTIONS }, 0);
  if (wantsHelp(values, io, helpFor("serve"))) return 0;
  const server = resolveServeSettings(values, io);
  const env = server.home !== undefined ? { ...io.env, TERN_HOME: server.home } : io.env;
  const cluster = resolveClusterSettings(values, { ...io, env });
  if (cluster) return (await import("./cluster.js")).clusterServe(values, io, cluster, server);
  const { settings, warn } = commandContext(values, { ...io, env });
  const registry = createRegistry(settings, warn);
  const model = chooseModel(registry, settings, env, settings.config.path);
  const { secrets, redactor, onSecret } = servedSecrets(
    replaysOffline(settings.cassette) ? [] : await ensureConfiguredKey(model, settings, env),
    io.redactor,
  );
  // Nobody to ask here: project MCP servers start only if approved before (tern mcp approve).
  const mcp = await openMcp({
    settings: settings.mcp,
    home: settings.home,
    cwd: settings.cwd,
    env,
    warn,
    sandbox: bashSandbox(settings),
    onSecret,
  });

  const say = (line: string) => (server.stdio ? io.stderr : io.stdout).write(`${line}\n`);
  let finished: (code: ExitCode) => void = () => {};
  const done = new Promise<ExitCode>((resolve) => {
    finished = resolve;
  });
  let served: Served | undefined;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await served?.close().catch(() => {});
    await mcp?.close();
    finished(0);
  };
  const page = webRoot();
  try {
    served = await listen(server, {
      ...(page !== undefined ? { webRoot: page } : {}),
      engine: {
        ...(await servedEngineOptions(settings, server, {
          registry,
          model,
          env,
          warn,
          ...(mcp ? { mcp } : {}),
        })),
        secrets,
        redactor,
      },
      onShutdown: () => void stop(),
    });
  } catch (error) {
    await mcp?.close();
    throw error;
  }
  if (settings.tools !== "none") {
    // Once, at start: where the sandbox cannot run, bash calls fail until --sandbox off.
    const sandbox = await createSandbox(bashSandbox(settings)).status();
    io.stderr.write(`tern serve: bash: ${sandboxWarning(sandbox) ?? describeSandbox(sandbox)}\n`);
  }
  announce(served, server, page, say);
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
  return done;
}

/** The lines clients wait for: the HTTP address, the web page's, the JSON-RPC port. */
export function announce(
  served: Served,
  server: ServeSettings,
  page: string | undefined,
  say: (line: string) => void,
): void {
  if (served.http) say(`http listening on ${served.http.url}`);
  if (served.http && page !== undefined) say(webLine(served.http.url, server.token !== undefined));
  if (served.rpc) say(`listening on port ${served.rpc.port}`);
}

/** Starts the listeners; a port in use or a refused bind is a usage error naming it. */
export async function listen(
  server: ServeSettings,
  parts: Pick<Parameters<typeof serve>[0], "engine" | "onShutdown" | "webRoot">,
): Promise<Served> {
  try {
    return await serve({
      ...parts,
      stdio: server.stdio,
      allowOrigins: server.allowOrigins,
      maxConnections: server.maxConnections,
      requestTimeoutMs: server.requestTimeoutMs,
      headersTimeoutMs: server.headersTimeoutMs,
      rpcIdleTimeoutMs: server.rpcIdleTimeoutMs,
      maxBodyBytes: server.maxBodyBytes,
      maxStreams: server.maxStreams,
      maxSessionStreams: server.maxSessionStreams,
      maxMessageBytes: server.maxMessageBytes,
      maxBatchItems: server.maxBatchItems,
      ...(server.port !== undefined ? { port: server.port } : {}),
      ...(server.rpcPort !== undefined ? { rpcPort: server.rpcPort } : {}),
      ...(server.host !== undefined ? { host: server.host } : {}),
      ...(server.token !== undefined ? { token: server.token } : {}),
    });
  } catch (error) {
    const { code, port, address, message } = error as NodeJS.ErrnoException & {
      port?: number;
      address?: string;
    };
    const where = `${address ?? server.host ?? "127.0.0.1"}:${port ?? ""}`;
    if (code === "EADDRINUSE")
      throw new UsageError(
        `serve: port ${port} is already in use (${where}); pick another with --port/--rpc-port, or 0 for any free one`,
      );
    if (code === "EACCES") throw new UsageError(`serve: no permission to listen on ${where}`);
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
      throw new UsageError(`serve: cannot listen on --host ${server.host}: no such local address`);
    if (error instanceof Error && /requires a token/.test(message)) throw new UsageError(`serve: ${message}`);
    throw error;
  }
}
