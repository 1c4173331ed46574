// A serve node of the cluster: the HTTP API of `tern serve`, with runs submitted as jobs instead
// of run in this process, and every session's events read from the database, so a client sees a
// run wherever it executes and may reconnect to any node. Routes:
//   GET  /healthz                         {ok, store: {kind, ok, schemaVersion?}, database}: 503 when
//                                         the cluster's database or the session store is down
//   POST /api/sessions                    {name?} -> 201 {session: {id}} (in the node's --cwd)
//   POST /api/sessions/:id/messages       {content} -> 202 {run_id}
//   GET  /api/sessions/:id/events         SSE of the session's events from Last-Event-ID (or
//                                         ?after=seq); ids are the log's seqs; stays open
//   GET  /api/runs/:runId                 {run: {run_id, session_id, state, takeovers}}
//   POST /api/sessions/:id/interrupt      {content} -> 202 (to the worker running the session)
//   POST /api/sessions/:id/abort          -> 202
//   POST /api/sessions/:id/permissions/:requestId {decision: allow_once|allow_always|deny, message?}
// The same guard as `tern serve`: loopback unless a token is set, Host/Origin checked, bearer
// token on /api.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  authorized,
  checkBind,
  HttpError,
  optionalString,
  RequestGuard,
  readJson,
  SSE_HEADERS,
  sendError,
  sendJson,
} from "@tern/server";
import type { SessionStore } from "@tern/session";
import type { Pool } from "pg";
import { type Control, sendControl } from "./control.js";
import { createPool } from "./db.js";
import { EventFeed } from "./event-feed.js";
import { enqueueRun, getRun } from "./queue.js";
import { migrate } from "./schema.js";

const KEEPALIVE_MS = 15_000;
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const DECISIONS: Record<string, { allow: boolean; remember?: boolean }> = {
  allow_once: { allow: true },
  allow_always: { allow: true, remember: true },
  deny: { allow: false },
};

export interface FrontOptions {
  connectionString: string;
  store: SessionStore;
  /** Working directory of new sessions. */
  cwd: string;
  host?: string;
  port?: number;
  token?: string;
  allowOrigins?: readonly string[];
  log?: (line: string) => void;
}

export interface ClusterFront {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startFront(options: FrontOptions): Promise<ClusterFront> {
  const host = options.host ?? "127.0.0.1";
  checkBind(host, options.token, "tern serve");
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const pool = createPool(options.connectionString, log);
  await migrate(pool, options.connectionString);
  const feed = new EventFeed(pool, options.connectionString);
  await feed.start();
  const guard = new RequestGuard({ host, allowOrigins: options.allowOrigins ?? [] });
  const streams = new Set<ServerResponse>();
  const ctx = { pool, feed, store: options.store, cwd: options.cwd, token: options.token, streams };
  const server: Server = createServer((req, res) => {
    (async () => {
      if (guard.check(req, res)) return;
      await route(req, res, ctx);
    })().catch((error) => sendError(res, error, log));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    close: async () => {
      for (const res of streams) res.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await feed.close();
      await pool.end();
    },
  };
}

interface Ctx {
  pool: Pool;
  feed: EventFeed;
  store: SessionStore;
  cwd: string;
  token: string | undefined;
  streams: Set<ServerResponse>;
}

async function route(req: IncomingMessage, res: ServerResponse, ctx: Ctx): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const parts = url.pathname.split("/").filter(Boolean);
  const method = req.method ?? "GET";
  if (url.pathname === "/healthz") return health(res, ctx.pool, ctx.store);
  if (parts[0] !== "api") throw new HttpError(404, "not_found", `no route ${method} ${url.pathname}`);
  if (!authorized(req, ctx.token))
    throw new HttpError(401, "unauthorized", "missing or wrong bearer token (Authorization: Bearer <token>)");
  if (parts[1] === "runs" && parts.length === 3) {
    expect(method, "GET");
    const run = await getRun(ctx.pool, parts[2]!);
    if (!run) throw new HttpError(404, "not_found", "no such run");
    return sendJson(res, 200, {
      run: { run_id: run.runId, session_id: run.sessionId, state: run.state, takeovers: run.takeovers },
    });
  }
  if (parts[1] !== "sessions") throw new HttpError(404, "not_found", `no route ${method} ${url.pathname}`);
  const id = parts[2];
  if (id === undefined) {
    expect(method, "POST");
    const body = await readJson(req);
    const name = optionalString(body, "name");
    const session = await ctx.store.create({ cwd: ctx.cwd, ...(name !== undefined ? { name } : {}) });
    await session.close();
    return sendJson(res, 201, { session: { id: session.id } });
  }
  if (!SESSION_ID.test(id)) throw new HttpError(400, "invalid", "invalid session id");
  switch (parts.length === 4 || parts.length === 5 ? parts[3] : undefined) {
    case "messages": {
      expect(method, "POST");
      const content = await contentOf(req);
      await ctx.store.load(id).catch(() => {
        throw new HttpError(404, "not_found", `no session "${id}"`);
      });
      return sendJson(res, 202, { run_id: await enqueueRun(ctx.pool, id, content) });
    }
    case "events":
      expect(method, "GET");
      return stream(req, res, ctx, id, url);
    case "interrupt":
      expect(method, "POST");
      return control(res, ctx, id, { kind: "interrupt", text: await contentOf(req) });
    case "abort":
      expect(method, "POST");
      return control(res, ctx, id, { kind: "abort" });
    case "permissions": {
      expect(method, "POST");
      const body = await readJson(req);
      const decision = optionalString(body, "decision") ?? "";
      const answer = Object.hasOwn(DECISIONS, decision) ? DECISIONS[decision] : undefined;
      if (!answer || parts[4] === undefined)
        throw new HttpError(400, "invalid", `"decision" must be one of ${Object.keys(DECISIONS).join(", ")}`);
      const reason = optionalString(body, "message")?.trim();
      return control(res, ctx, id, {
        kind: "permission",
        requestId: parts[4],
        ...answer,
        ...(reason ? { reason } : {}),
      });
    }
    default:
      throw new HttpError(404, "not_found", `no route ${method} ${url.pathname}`);
  }
}

/** The same report as `tern serve`'s /healthz (the session store's health), plus the cluster's database. */
async function health(res: ServerResponse, pool: Pool, sessions: SessionStore): Promise<void> {
  const [database, store] = await Promise.all([
    pool.query("select 1").then(
      () => "reachable" as const,
      () => "unreachable" as const,
    ),
    sessions.health?.() ?? Promise.resolve({ kind: "custom", ok: true }),
  ]);
  const ok = database === "reachable" && store.ok;
  sendJson(res, ok ? 200 : 503, { ok, store, database });
}

async function control(res: ServerResponse, ctx: Ctx, id: string, body: Control): Promise<void> {
  await sendControl(ctx.pool, id, body);
  sendJson(res, 202, { sent: true });
}

function stream(req: IncomingMessage, res: ServerResponse, ctx: Ctx, id: string, url: URL): void {
  const header = req.headers["last-event-id"];
  const from = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get("after") ?? "0";
  if (!/^\d{1,9}$/.test(from.trim()))
    throw new HttpError(400, "invalid", "Last-Event-ID must be a seq number");
  res.writeHead(200, SSE_HEADERS);
  res.write("retry: 1000\n\n");
  const unsubscribe = ctx.feed.subscribe(id, Number(from.trim()), (events) => {
    for (const { seq, event } of events)
      res.write(`id: ${seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  });
  const keepAlive = setInterval(() => res.write(": keepalive\n\n"), KEEPALIVE_MS);
  keepAlive.unref();
  ctx.streams.add(res);
  res.on("close", () => {
    unsubscribe();
    clearInterval(keepAlive);
    ctx.streams.delete(res);
  });
}

async function contentOf(req: IncomingMessage): Promise<string> {
  const content = optionalString(await readJson(req), "content");
  if (content === undefined || content.trim() === "")
    throw new HttpError(400, "invalid", 'the body needs a non-empty "content" string');
  return content;
}

function expect(method: string, wanted: string): void {
  if (method !== wanted) throw new HttpError(405, "method_not_allowed", `use ${wanted}`);
}
