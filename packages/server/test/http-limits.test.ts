// The HTTP server's limits with real requests, each on its own connection (node:http, no pooling)
// and with the caps set low: a body over maxBodyBytes is 413 (by its Content-Length or as it
// arrives) and the connection closes; SSE streams over the per-session and the total cap are
// refused with a JSON error and Retry-After; with every ordinary connection held by a stream,
// an ordinary request is 503 while /healthz and a request carrying the token are still served
// from the reserve. /healthz answers after each. And closing the server while a run streams
// ends its streams without a write-after-end error when the run goes on.
import { request } from "node:http";
import { fauxToolCall } from "@tern/ai/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpServer, type HttpServerOptions, startServer } from "../src/http/server.js";
import { lookupTool, type TestEngine, testEngine } from "./support/engine.js";

const TOKEN = "s3cret-token";
let env: TestEngine;
let server: HttpServer;
let release: () => void = () => {};

afterEach(async () => {
  release();
  await server?.close();
  await env?.close();
});

/** A server whose first run waits in a tool until `release()`; resolves once it does. */
async function start(options: Omit<HttpServerOptions, "engine">): Promise<{ waiting: Promise<void> }> {
  let started!: () => void;
  const waiting = new Promise<void>((resolve) => {
    started = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const slowTool = {
    ...lookupTool,
    execute: async () => {
      started();
      await gate;
      return "ok";
    },
  };
  env = testEngine({
    faux: { replies: [{ content: [fauxToolCall("lookup", { q: "x" })] }, "done"] },
    agent: { tools: [slowTool] },
  });
  server = await startServer({ engine: env.engine, ...options });
  return { waiting };
}

/** A server (see start) with a session whose run is waiting in its tool, streaming on `run`. */
async function startRunning(
  options: Omit<HttpServerOptions, "engine">,
  headers: Record<string, string> = {},
): Promise<{ id: string; run: Reply }> {
  const { waiting } = await start(options);
  const { id } = await env.engine.create();
  const run = await send(`/api/sessions/${id}/messages`, {
    method: "POST",
    headers: json(headers),
    body: '{"content":"go"}',
  });
  expect(run.status).toBe(200);
  await waiting;
  return { id, run };
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The whole body (for a stream: once it ends). */
  body: Promise<string>;
  /** Drops the connection. */
  close(): void;
}

/** One request on a connection of its own; resolves once the response's headers arrived. */
function send(
  path: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    chunked?: boolean;
  } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, server.url);
    const req = request(
      url,
      { method: options.method ?? "GET", headers: options.headers, agent: false },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        const body = new Promise<string>((done) => {
          res.on("end", () => done(text));
          res.on("close", () => done(text));
        });
        resolve({ status: res.statusCode!, headers: res.headers, body, close: () => req.destroy() });
      },
    );
    req.on("error", reject);
    if (options.body !== undefined && options.chunked) {
      // No Content-Length: the body arrives in pieces and its size is known only as it comes.
      const body = Buffer.from(options.body);
      for (let i = 0; i < body.length; i += 1000) req.write(body.subarray(i, i + 1000));
      req.end();
    } else req.end(options.body);
  });
}

const json = (extra: Record<string, string> = {}) => ({ "content-type": "application/json", ...extra });
const bearer = { authorization: `Bearer ${TOKEN}` };

async function errorCode(reply: Reply): Promise<string> {
  expect(reply.headers["content-type"]).toContain("application/json");
  return (JSON.parse(await reply.body) as { error: { code: string } }).error.code;
}

/** A refusal that tells the client when to come back. */
async function expectRefused(reply: Reply, status: number, code: string): Promise<void> {
  expect(reply.status).toBe(status);
  expect(reply.headers["retry-after"]).toMatch(/^\d+$/);
  expect(await errorCode(reply)).toBe(code);
}

async function healthy(): Promise<void> {
  const reply = await send("/healthz");
  expect(reply.status).toBe(200);
  expect(JSON.parse(await reply.body)).toMatchObject({ ok: true });
}

describe("request body size", () => {
  it("answers a body over maxBodyBytes with 413 and closes its connection; a smaller one is read", async () => {
    await start({ maxBodyBytes: 1000 });
    const big = JSON.stringify({ name: "n".repeat(5000) });
    const declared = await send("/api/sessions", { method: "POST", headers: json(), body: big });
    expect(declared.status).toBe(413);
    expect(declared.headers.connection).toBe("close");
    expect(await errorCode(declared)).toBe("too_large");
    const streamed = await send("/api/sessions", {
      method: "POST",
      headers: json(),
      body: big,
      chunked: true,
    });
    expect(streamed.status).toBe(413);
    expect(await errorCode(streamed)).toBe("too_large");
    await healthy();
    const small = await send("/api/sessions", { method: "POST", headers: json(), body: '{"name":"ok"}' });
    expect(small.status).toBe(201);
  });
});

describe("SSE stream caps", () => {
  it("refuses a stream over maxSessionStreams with 429 and Retry-After, and takes one once a stream closed", async () => {
    const { id, run } = await startRunning({ maxSessionStreams: 3 });
    const events = [await send(`/api/sessions/${id}/events`), await send(`/api/sessions/${id}/events`)];
    expect(events.map((e) => e.status)).toEqual([200, 200]);
    await expectRefused(await send(`/api/sessions/${id}/events`), 429, "too_many_streams");
    // Another session is not held by this one's cap.
    const other = await env.engine.create();
    expect((await send(`/api/sessions/${other.id}/events`)).status).toBe(204);
    await healthy();
    events[0]!.close();
    await events[0]!.body;
    // The server counts the stream out once it saw the close: retry until it has (no clock involved).
    let again = await send(`/api/sessions/${id}/events`);
    while (again.status === 429) again = await send(`/api/sessions/${id}/events`);
    expect(again.status).toBe(200);
    release();
    expect(await run.body).toContain("event: done");
  });

  it("refuses a stream over maxStreams (all sessions) with 503 and Retry-After", async () => {
    const { id, run } = await startRunning({ maxStreams: 2 });
    expect((await send(`/api/sessions/${id}/events`)).status).toBe(200);
    await expectRefused(await send(`/api/sessions/${id}/events`), 503, "overloaded");
    await healthy();
    release();
    expect(await run.body).toContain("event: done");
  });
});

describe("connection reserve", () => {
  it("serves /healthz and token-carrying requests when streams hold every ordinary connection", async () => {
    const { id, run } = await startRunning(
      { maxConnections: 3, reservedConnections: 2, token: TOKEN },
      bearer,
    );
    const streams = [
      await send(`/api/sessions/${id}/events`, { headers: bearer }),
      await send(`/api/sessions/${id}/events`, { headers: bearer }),
    ];
    expect(streams.map((s) => s.status)).toEqual([200, 200]);

    await expectRefused(await send("/api/models"), 503, "overloaded");
    await healthy();
    const operator = await send("/api/sessions", { headers: bearer });
    expect(operator.status).toBe(200);
    expect(JSON.parse(await operator.body)).toHaveProperty("sessions");

    // The operator's own streams may fill the reserve; then even /healthz waits for room.
    const held = [
      await send(`/api/sessions/${id}/events`, { headers: bearer }),
      await send(`/api/sessions/${id}/events`, { headers: bearer }),
    ];
    expect(held.map((s) => s.status)).toEqual([200, 200]);
    const full = await send("/healthz");
    expect(full.status).toBe(503);
    for (const stream of held) stream.close();
    await Promise.all(held.map((s) => s.body));
    let health = await send("/healthz");
    while (health.status === 503) health = await send("/healthz");
    expect(health.status).toBe(200);
    release();
    expect(await run.body).toContain("event: done");
  });
});

describe("closing", () => {
  it("ends open streams without an error when their run goes on after the server closed", async () => {
    const { id, run } = await startRunning({});
    release();
    const closing = server.close();
    await run.body;
    await closing;
    await env.engine.get(id)!.idle();
    expect(env.engine.get(id)!.isRunning).toBe(false);
  });
});
