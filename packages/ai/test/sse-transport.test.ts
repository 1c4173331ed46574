import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { classifyError } from "../src/errors.js";
import { HttpError, postForEvents, readEvents } from "../src/sse-transport.js";
import { type ScriptServer, serveScript } from "../src/testing/index.js";

// tern's own transport: errors as data classifyError understands, SSE events in order, one
// keep-alive connection per origin.

let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function failureOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HttpError);
  return { error: error as HttpError, failure: classifyError(error) };
}

describe("sse-transport", () => {
  it("maps error answers: JSON payloads, plain text, empty bodies and Retry-After", async () => {
    server = await serveScript([
      {
        kind: "json",
        status: 429,
        headers: { "retry-after": "2" },
        body: { error: { message: "Slow down" } },
      },
      { kind: "json", status: 404, body: "no such route" },
      { kind: "sse", status: 503, body: "" },
    ]);
    const post = () => postForEvents({ url: `${server!.baseUrl}/v1/x`, headers: {}, body: { a: 1 } });
    const limited = await failureOf(post());
    expect(limited.error.message).toBe("429 Slow down");
    expect(limited.failure).toMatchObject({ kind: "rate_limit", status: 429, retryAfterMs: 2000 });
    const missing = await failureOf(post());
    expect(missing.failure).toMatchObject({ kind: "invalid_request", status: 404 });
    expect(missing.error.message).toContain("no such route");
    const down = await failureOf(post());
    expect(down.failure).toMatchObject({
      kind: "overloaded",
      status: 503,
      message: "503 status code (no body)",
    });
  });

  it("hands events over in order, including a last one without its blank line", async () => {
    const body = 'event: a\ndata: {"n":1}\n\ndata: two\ndata: lines\n\n: a comment\n\ndata: last';
    server = await serveScript([{ kind: "sse", body, chunks: [3, 10, 30] }]);
    const response = await postForEvents({ url: `${server.baseUrl}/s`, headers: { "x-h": "v" }, body: {} });
    const seen: Array<{ event?: string; data: string }> = [];
    await readEvents(response, ({ event, data }) => seen.push({ ...(event && { event }), data }));
    expect(seen).toEqual([{ event: "a", data: '{"n":1}' }, { data: "two\nlines" }, { data: "last" }]);
    expect(server.requests[0]?.headers["x-h"]).toBe("v");
    expect(server.requests[0]?.body).toEqual({});
  });

  it("stops reading and rejects with what the event handler threw", async () => {
    server = await serveScript([{ kind: "sse", body: "data: 1\n\ndata: 2\n\ndata: 3\n\n" }]);
    const response = await postForEvents({ url: `${server.baseUrl}/s`, headers: {}, body: {} });
    const seen: string[] = [];
    const reading = readEvents(response, ({ data }) => {
      seen.push(data);
      if (data === "2") throw new Error("bad event");
    });
    await expect(reading).rejects.toThrow("bad event");
    expect(seen).toEqual(["1", "2"]);
  });

  it("reuses keep-alive connections across sequential calls", async () => {
    const sockets = new Set<unknown>();
    const http = createServer((req, res) => {
      sockets.add(req.socket);
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end("data: ok\n\n");
      });
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/s`;
    try {
      for (let i = 0; i < 10; i++) {
        const response = await postForEvents({ url, headers: {}, body: { i } });
        await readEvents(response, () => {});
      }
      // undici frees a socket a tick after the body ends, so back-to-back calls may use two.
      expect(sockets.size).toBeLessThanOrEqual(2);
    } finally {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});
