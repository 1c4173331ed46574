// JSON-RPC on a raw TCP socket: frames split anyhow, bad JSON, invalid requests and unknown
// methods get JSON-RPC errors, and the connection (and server) go on; a frame without a valid
// Content-Length (or an HTTP request) gets an error and the connection is closed.
import { connect, type Socket } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeFrame, FrameDecoder } from "../src/rpc/framer.js";
import { type JsonRpcServer, serveJsonRpc } from "../src/rpc/serve.js";
import { type TestEngine, testEngine } from "./support/engine.js";
import { type RpcClient, rpcClient } from "./support/rpc-client.js";

let env: TestEngine;
let server: JsonRpcServer;
let client: RpcClient;
let socket: Socket;

beforeEach(async () => {
  env = testEngine();
  server = await serveJsonRpc({ engine: env.engine, port: 0 });
  client = await rpcClient(server.port!);
  socket = client.socket;
});

afterEach(async () => {
  socket.destroy();
  await server.close();
  await env.close();
});

function nextMessages(count: number): Promise<Record<string, unknown>[]> {
  return client.next(count);
}

function send(bytes: string | Buffer): void {
  client.send(bytes);
}

describe("JSON-RPC framing and errors", () => {
  it("answers a request split over many writes and several requests in one write", async () => {
    const frame = encodeFrame({ jsonrpc: "2.0", id: 1, method: "ping", params: { message: "héllo" } });
    for (let i = 0; i < frame.length; i += 3) send(frame.subarray(i, i + 3));
    const [pong] = await nextMessages(1);
    expect(pong).toMatchObject({ jsonrpc: "2.0", id: 1, result: { message: "héllo", protocolVersion: 3 } });
    send(
      Buffer.concat([
        encodeFrame({ jsonrpc: "2.0", id: 2, method: "status.get" }),
        encodeFrame({ jsonrpc: "2.0", id: 3, method: "connect", params: {} }),
      ]),
    );
    const answers = await nextMessages(2);
    expect(answers.map((a) => a.id).sort()).toEqual([2, 3]);
    expect(answers.find((a) => a.id === 3)).toMatchObject({ result: { protocolVersion: 3 } });
  });

  it("gives JSON-RPC errors for bad JSON, invalid requests and unknown methods", async () => {
    send("Content-Length: 9\r\n\r\n{not json");
    send(encodeFrame({ jsonrpc: "2.0", id: 4, method: "no.such.method" }));
    send(encodeFrame({ jsonrpc: "2.0", id: 5 }));
    send(
      encodeFrame({
        jsonrpc: "2.0",
        id: 6,
        method: "session.send",
        params: { sessionId: "nope", prompt: "hi" },
      }),
    );
    send(encodeFrame({ jsonrpc: "2.0", id: 7, method: "session.send", params: { prompt: 42 } }));
    send(encodeFrame([]));
    send(encodeFrame({ jsonrpc: "2.0", method: "no.such.notification" }));
    const errors = await nextMessages(6);
    const byId = (id: unknown) =>
      errors.filter((e) => e.id === id).map((e) => (e.error as { code: number }).code);
    expect(byId(null).sort()).toEqual([-32700, -32600].sort());
    expect(byId(4)).toEqual([-32601]);
    expect(byId(5)).toEqual([-32600]);
    expect(byId(6)).toEqual([-32001]);
    expect(byId(7)).toEqual([-32602]);
    // Still serving on the same connection.
    send(encodeFrame({ jsonrpc: "2.0", id: 8, method: "ping" }));
    expect((await nextMessages(1))[0]).toMatchObject({ id: 8, result: { message: "pong" } });
  });

  it("does not take Object.prototype's names for methods", async () => {
    for (const [id, method] of ["constructor", "__proto__", "toString", "hasOwnProperty"].entries())
      send(encodeFrame({ jsonrpc: "2.0", id, method }));
    const errors = await nextMessages(4);
    expect(errors.map((e) => (e.error as { code: number }).code)).toEqual([-32601, -32601, -32601, -32601]);
  });

  it("closes the connection after a frame without a valid Content-Length", async () => {
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    send("Content-Length: ten\r\n\r\n{}");
    const [error] = await nextMessages(1);
    expect(error).toMatchObject({ id: null, error: { code: -32600 } });
    await closed;
    // The server still takes new connections.
    const again = connect(server.port!, "127.0.0.1");
    const reply = new Promise<string>((resolve) => again.once("data", (chunk) => resolve(chunk.toString())));
    again.write(encodeFrame({ jsonrpc: "2.0", id: 1, method: "ping" }));
    expect(await reply).toContain('"pong"');
    again.destroy();
  });

  it("refuses a connection beyond maxConnections and keeps serving the open ones", async () => {
    const capped = await serveJsonRpc({ engine: env.engine, port: 0, maxConnections: 1 });
    try {
      const first = connect(capped.port!, "127.0.0.1");
      await new Promise((resolve) => first.once("connect", resolve));
      const pong = new Promise<string>((resolve) => first.once("data", (chunk) => resolve(chunk.toString())));
      const second = connect(capped.port!, "127.0.0.1");
      second.on("error", () => {});
      await new Promise((resolve) => second.once("close", resolve));
      first.write(encodeFrame({ jsonrpc: "2.0", id: 1, method: "ping" }));
      expect(await pong).toContain('"pong"');
      first.destroy();
    } finally {
      await capped.close();
    }
  });

  it("answers a batch with an array, and skips an oversized frame's body", async () => {
    send(
      encodeFrame([
        { jsonrpc: "2.0", id: "a", method: "ping" },
        { jsonrpc: "2.0", id: "b", method: "nope" },
        { jsonrpc: "2.0", method: "ping" },
      ]),
    );
    const [batch] = await nextMessages(1);
    expect(Array.isArray(batch)).toBe(true);
    expect((batch as unknown as { id: string }[]).map((r) => r.id).sort()).toEqual(["a", "b"]);

    const small = new FrameDecoder(10);
    const message = { jsonrpc: "2.0", id: 9, method: "ping", params: { too: "long a message" } };
    const long = encodeFrame(message);
    // Split anyhow: the body is skipped as it comes, and the frame after it is read.
    const bytes = Buffer.concat([long, encodeFrame(1)]);
    const frames = [...small.push(bytes.subarray(0, 30)), ...small.push(bytes.subarray(30))];
    expect(frames).toEqual([
      { kind: "too_large", size: JSON.stringify(message).length, limit: 10, id: 9 },
      { kind: "message", text: "1" },
    ]);
  });
});
