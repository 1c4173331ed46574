// The HTTP API (FIM One's shape):
//   GET  /healthz                         liveness (no token needed)
//   GET  /  and /assets/*                 the web page, when the server has one (static.ts)
//   GET  /api/models                      {models, default}: the catalogue a session can use
//   POST /api/sessions                    {model?, systemPrompt?, name?, cwd?} -> 201 {session}
//   GET  /api/sessions                    {sessions}
//   GET  /api/sessions/:id                {session, messages, permissions, run_from}
//   POST /api/sessions/:id/messages       {content} -> SSE stream of the run
//   GET  /api/sessions/:id/events         SSE: the latest run (or from Last-Event-ID) until idle
//   POST /api/sessions/:id/interrupt      {content} -> 202, delivered at the next turn boundary
//   POST /api/sessions/:id/abort          {aborted}
//   GET  /api/sessions/:id/changes        {changes: [{path, status, diff, note?}]} (changes.ts)
//   DELETE /api/sessions/:id              {deleted}
//   POST /api/sessions/:id/permissions/:requestId
//                                         {decision: allow_once|allow_always|deny, message?}
//   GET  /api/runs/:runId                 {run}: hosts that number runs (a cluster's queued host)
// Before any route: the RequestGuard (Host, Origin), then the token on /api.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Engine } from "../engine/engine.js";
import type { HostedSession } from "../engine/run-host.js";
import { permissionView } from "../mappings/fim-sse.js";
import type { PermissionAnswer } from "../types.js";
import { SERVER_VERSION } from "../version.js";
import { authorized } from "./auth.js";
import { sendChanges } from "./changes.js";
import type { RequestGuard } from "./guard.js";
import { HttpError, optionalString, readJson, sendError, sendJson } from "./request.js";
import { parseEventId, streamSession } from "./sse-stream.js";
import type { StaticSite } from "./static.js";
import type { StreamCap } from "./stream-cap.js";

export interface RouteContext {
  engine: Engine;
  token: string | undefined;
  guard: RequestGuard;
  keepAliveMs?: number;
  retryMs?: number;
  /** Where server faults are logged (never sent to the client). */
  log?: (text: string) => void;
  /** The web page, when there is one. */
  site?: StaticSite;
  /** The largest JSON body read (request.ts's default otherwise). */
  maxBodyBytes?: number;
  /** The open-stream limits SSE responses count against. */
  streams?: StreamCap;
}

/** The answers a permission question offers (SSE `permission` frames list them). */
const DECISIONS: Record<string, PermissionAnswer> = {
  allow_once: { allow: true },
  allow_always: { allow: true, remember: true },
  deny: { allow: false },
};

export async function handle(req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> {
  try {
    if (ctx.guard.check(req, res)) return;
    await route(req, res, ctx);
  } catch (error) {
    sendError(res, error, ctx.log);
  }
}

async function route(req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const parts = url.pathname.split("/").filter(Boolean).map(decodePart);
  const method = req.method ?? "GET";
  if (url.pathname === "/healthz") {
    expect(method, "GET");
    // The store is part of health: a node that cannot reach its database should get no traffic.
    const [store, host] = await Promise.all([
      ctx.engine.store.health?.() ?? { kind: "custom", ok: true },
      ctx.engine.host.health?.() ?? { ok: true },
    ]);
    const { ok: hostOk, ...hostReport } = host;
    const ok = store.ok && hostOk;
    return sendJson(res, ok ? 200 : 503, {
      ok,
      version: SERVER_VERSION,
      sessions: ctx.engine.sessions.length,
      store,
      ...hostReport,
    });
  }
  // The page and its assets are public (they hold no data); the API behind them needs the token.
  if (parts[0] !== "api" && ctx.site?.serve(req, res, url.pathname)) return;
  if (url.pathname === "/api/models") {
    requireToken(req, ctx);
    expect(method, "GET");
    return sendJson(res, 200, modelsView(ctx.engine));
  }
  const describeRun = ctx.engine.host.describeRun?.bind(ctx.engine.host);
  if (describeRun && parts[0] === "api" && parts[1] === "runs" && parts.length === 3) {
    requireToken(req, ctx);
    expect(method, "GET");
    const run = await describeRun(parts[2]!);
    if (!run) throw new HttpError(404, "not_found", "no such run");
    return sendJson(res, 200, { run });
  }
  if (parts[0] !== "api" || parts[1] !== "sessions" || parts.length > (parts[3] === "permissions" ? 5 : 4))
    throw new HttpError(404, "not_found", `no route ${method} ${url.pathname}`);
  requireToken(req, ctx);
  const id = parts[2];
  const action = parts[3];
  if (id === undefined) {
    if (method === "GET")
      return sendJson(res, 200, ctx.engine.redactor.json({ sessions: await ctx.engine.list() }));
    expect(method, "POST");
    return createSession(req, res, ctx);
  }
  switch (action) {
    case undefined: {
      if (method === "DELETE") {
        await ctx.engine.delete(id);
        return sendJson(res, 200, { deleted: true });
      }
      expect(method, "GET");
      // The messages first: a damaged file is reported as such (422), not as a missing session.
      const messages = await ctx.engine.messages(id);
      // A live session's messages are the agent's own (a tool's output as it printed it).
      return sendJson(
        res,
        200,
        ctx.engine.redactor.json({
          session: await ctx.engine.describe(id),
          messages,
          permissions: (ctx.engine.get(id)?.openQuestions() ?? []).map(permissionView),
          // Where the run /events replays begins in `messages` (a page shows the ones before it
          // from here and the run itself from the stream, so nothing shows twice).
          run_from: ctx.engine.get(id)?.runFrom ?? messages.length,
        }),
      );
    }
    case "messages": {
      expect(method, "POST");
      const content = await contentOf(req, ctx);
      const session = await ctx.engine.open(id);
      if (session.isRunning)
        throw new HttpError(409, "busy", `session ${id} is already running; interrupt or abort it first`);
      ctx.engine.checkAdmission();
      return streamSession(res, session, { startRun: () => session.run(content), ...streamOptions(ctx) });
    }
    case "events": {
      expect(method, "GET");
      return replay(req, res, await ctx.engine.open(id), url, ctx);
    }
    case "interrupt": {
      expect(method, "POST");
      const content = await contentOf(req, ctx);
      (await ctx.engine.open(id)).interrupt(content);
      return sendJson(res, 202, { queued: true });
    }
    case "changes":
      expect(method, "GET");
      return sendChanges(res, ctx.engine, id);
    case "abort":
      expect(method, "POST");
      return sendJson(res, 200, { aborted: (await ctx.engine.open(id)).abort() });
    case "permissions":
      expect(method, "POST");
      return answerPermission(req, res, ctx, id, parts[4]);
    default:
      throw new HttpError(404, "not_found", `no route ${method} ${url.pathname}`);
  }
}

/** The model catalogue: what `POST /api/sessions` accepts as `model`. */
function modelsView(engine: Engine) {
  const models = engine.models.list().map((model) => ({
    id: `${model.provider}/${model.id}`,
    name: model.name ?? model.id,
    provider: model.provider,
  }));
  const fallback = engine.models.resolve(undefined);
  return { models, default: fallback ? `${fallback.provider}/${fallback.id}` : null };
}

async function createSession(req: IncomingMessage, res: ServerResponse, ctx: RouteContext): Promise<void> {
  const { engine } = ctx;
  const body = await readJson(req, ctx.maxBodyBytes);
  const systemPrompt = optionalString(body, "systemPrompt");
  const model = optionalString(body, "model");
  const name = optionalString(body, "name");
  const cwd = optionalString(body, "cwd");
  const strategy = optionalString(body, "strategy");
  const session = await engine.create({
    ...(strategy !== undefined ? { strategy } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    ...(systemPrompt !== undefined ? { systemMessage: { content: systemPrompt } } : {}),
  });
  sendJson(res, 201, { session: await engine.describe(session.id) });
}

async function answerPermission(
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RouteContext,
  id: string,
  requestId: string | undefined,
): Promise<void> {
  const body = await readJson(req, ctx.maxBodyBytes);
  const decision = optionalString(body, "decision") ?? "";
  const answer = Object.hasOwn(DECISIONS, decision) ? DECISIONS[decision] : undefined;
  if (!answer)
    throw new HttpError(400, "invalid", `"decision" must be one of ${Object.keys(DECISIONS).join(", ")}`);
  const message = optionalString(body, "message")?.trim();
  const session = await ctx.engine.answering(id);
  if (
    requestId === undefined ||
    !session?.answerPermission(requestId, { ...answer, ...(message ? { reason: message } : {}) })
  )
    throw new HttpError(
      404,
      "not_found",
      `session ${id} has no open permission question "${requestId ?? ""}"`,
    );
  sendJson(res, 200, { answered: true });
}

function replay(
  req: IncomingMessage,
  res: ServerResponse,
  session: HostedSession,
  url: URL,
  ctx: RouteContext,
): void {
  const last = req.headers["last-event-id"];
  const given = (Array.isArray(last) ? last[0] : last) ?? url.searchParams.get("lastEventId");
  const after = parseEventId(given);
  // An id this server never sent is the client's mistake, not a reason to replay everything.
  if (given && !after)
    throw new HttpError(400, "invalid", "Last-Event-ID must be an event id of this stream (<n> or <n>.<m>)");
  // Nothing ran and nothing runs: 204 also tells an EventSource not to reconnect.
  if (!session.isRunning && session.journal.fromRunOf().length === 0) {
    res.writeHead(204);
    res.end();
    return;
  }
  streamSession(res, session, { ...(after ? { after } : {}), ...streamOptions(ctx) });
}

/** The message text: `content` (FIM's `q` and `message` are accepted too). */
async function contentOf(req: IncomingMessage, ctx: RouteContext): Promise<string> {
  const body = await readJson(req, ctx.maxBodyBytes);
  for (const key of ["content", "q", "message"]) {
    const value = optionalString(body, key);
    if (value !== undefined && value.trim() !== "") return value;
  }
  throw new HttpError(400, "invalid", 'the body needs a non-empty "content" string');
}

/** A path segment, percent-decoded; a malformed escape is the client's mistake. */
function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new HttpError(400, "bad_path", "the path has a malformed percent-escape");
  }
}

function requireToken(req: IncomingMessage, ctx: RouteContext): void {
  if (!authorized(req, ctx.token))
    throw new HttpError(401, "unauthorized", "missing or wrong bearer token (Authorization: Bearer <token>)");
}

function expect(method: string, wanted: string): void {
  if (method !== wanted) throw new HttpError(405, "method_not_allowed", `use ${wanted}`);
}

function streamOptions(ctx: RouteContext) {
  return {
    redactor: ctx.engine.redactor,
    ...(ctx.streams ? { cap: ctx.streams } : {}),
    ...(ctx.keepAliveMs !== undefined ? { keepAliveMs: ctx.keepAliveMs } : {}),
    ...(ctx.retryMs !== undefined ? { retryMs: ctx.retryMs } : {}),
  };
}
