// JSON-RPC size limits on a real TCP port, set low: a message over the size limit and a batch over
// the item limit each get one JSON-RPC error naming the limit (and the request's id where it can
// be found), and a ping then answers on the same connection and on another one. The id finder
// takes only a top-level id.
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFrame, FrameDecoder } from "../src/rpc/framer.js";
import { RequestIdSniffer } from "../src/rpc/request-id.js";
import { type JsonRpcServer, serveJsonRpc } from "../src/rpc/serve.js";
import { type TestEngine, testEngine } from "./support/engine.js";
import { rpcClient } from "./support/rpc-client.js";

const MAX_MESSAGE = 2_000;
const MAX_BATCH = 5;
let env: TestEngine;
let server: JsonRpcServer;

beforeAll(async () => {
  env = testEngine();
  server = await serveJsonRpc({
    engine: env.engine,
    port: 0,
    maxMessageBytes: MAX_MESSAGE,
    maxBatchItems: MAX_BATCH,
  });
});

afterAll(async () => {
  await server.close();
  await env.close();
});

const ping = (id: number | string) => encodeFrame({ jsonrpc: "2.0", id, method: "ping" });

async function pingsOnAFreshConnection(): Promise<void> {
  const other = await rpcClient(server.port!);
  other.send(ping("other"));
  expect((await other.next(1))[0]).toMatchObject({ id: "other", result: { message: "pong" } });
  other.socket.destroy();
}

describe("JSON-RPC limits", () => {
  it("answers a message over maxMessageBytes with an error naming its id, and goes on", async () => {
    const client = await rpcClient(server.port!);
    const prompt = "x".repeat(MAX_MESSAGE * 50);
    // The Copilot SDK's order (id first), then the MCP SDK's (id last), then a ping in the same write.
    client.send(
      Buffer.concat([
        encodeFrame({ jsonrpc: "2.0", id: 1, method: "session.send", params: { prompt } }),
        encodeFrame({ method: "session.send", params: { prompt }, jsonrpc: "2.0", id: "last" }),
        ping(2),
      ]),
    );
    const [first, second, pong] = await client.next(3);
    expect(first).toMatchObject({
      id: 1,
      error: { code: -32600, data: { code: "too_large", limit: MAX_MESSAGE } },
    });
    expect((first!.error as { message: string }).message).toMatch(/over the 2000-byte limit/);
    expect(second).toMatchObject({ id: "last", error: { code: -32600 } });
    expect(pong).toMatchObject({ id: 2, result: { message: "pong" } });
    // An id only inside params is not the request's: the reply's id is null.
    client.send(encodeFrame({ params: { id: 7, prompt }, jsonrpc: "2.0", method: "session.send" }));
    expect((await client.next(1))[0]).toMatchObject({ id: null, error: { code: -32600 } });
    client.send(ping(3));
    expect((await client.next(1))[0]).toMatchObject({ id: 3, result: { message: "pong" } });
    expect(client.socket.destroyed).toBe(false);
    await pingsOnAFreshConnection();
    client.socket.destroy();
  });

  it("answers a batch over maxBatchItems with one error, serves one at the limit, and goes on", async () => {
    const client = await rpcClient(server.port!);
    const items = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }));
    client.send(encodeFrame(items(MAX_BATCH + 1)));
    const [refused] = await client.next(1);
    expect(refused).toMatchObject({ id: null, error: { code: -32600, data: { items: MAX_BATCH + 1 } } });
    expect((refused!.error as { message: string }).message).toMatch(/over the 5-item limit/);
    client.send(encodeFrame(items(MAX_BATCH)));
    const [batch] = await client.next(1);
    expect((batch as unknown as { id: number }[]).map((r) => r.id).sort()).toEqual([0, 1, 2, 3, 4]);
    client.send(ping(9));
    expect((await client.next(1))[0]).toMatchObject({ id: 9, result: { message: "pong" } });
    await pingsOnAFreshConnection();
    client.socket.destroy();
  });

  it("answers over stdio too (the same peer), and the stream stays in step", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const stdio = await serveJsonRpc({ engine: env.engine, stdio: { input, output }, maxMessageBytes: 100 });
    const decoder = new FrameDecoder();
    const replies: Record<string, unknown>[] = [];
    const two = new Promise<void>((resolve) =>
      output.on("data", (chunk: Buffer) => {
        for (const frame of decoder.push(chunk))
          if (frame.kind === "message") replies.push(JSON.parse(frame.text));
        if (replies.length >= 2) resolve();
      }),
    );
    input.write(encodeFrame({ jsonrpc: "2.0", id: 1, method: "ping", params: { message: "y".repeat(500) } }));
    input.write(ping(2));
    await two;
    expect(replies).toMatchObject([
      { id: 1, error: { code: -32600 } },
      { id: 2, result: { message: "pong" } },
    ]);
    await stdio.close();
  });
});

describe("RequestIdSniffer", () => {
  const sniff = (text: string, chunk = 7) => {
    const sniffer = new RequestIdSniffer();
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += chunk) sniffer.push(bytes.subarray(i, i + chunk));
    return sniffer.id();
  };
  const big = "z".repeat(10_000);

  it("finds a first or last top-level id, never one inside params or a string", () => {
    expect(sniff(`{"jsonrpc":"2.0","id":12,"method":"m","params":{"p":"${big}"}}`)).toBe(12);
    expect(sniff(`{"id":"abc","params":{"p":"${big}"}}`)).toBe("abc");
    expect(sniff(`{"method":"m","params":{"p":"${big}"},"jsonrpc":"2.0","id":-3}`)).toBe(-3);
    expect(sniff(`{"method":"m","params":{"p":"${big}"},"id":"x","jsonrpc":"2.0"}\r\n`)).toBe("x");
    expect(sniff(`{"method":"m","params":{"p":"${big}","id":5}}`)).toBeNull();
    expect(sniff(`{"method":"m","params":{"p":"${big}, \\"id\\": 5}"}}`)).toBeNull();
    expect(sniff(`{"params":{"id":5,"p":"${big}"},"method":"m"}`)).toBeNull();
    expect(sniff(`[{"jsonrpc":"2.0","id":1,"method":"m"},{"p":"${big}"}]`)).toBeNull();
  });
});
