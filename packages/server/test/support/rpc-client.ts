// A raw JSON-RPC client on a TCP socket for the server's tests: it writes bytes as given (frames
// split anyhow, bad headers) and collects the decoded replies in order.
import { connect, type Socket } from "node:net";
import { FrameDecoder } from "../../src/rpc/framer.js";

export interface RpcClient {
  socket: Socket;
  send(bytes: string | Buffer): void;
  /** The next `count` replies (waits for them). */
  next(count: number): Promise<Record<string, unknown>[]>;
  /** Resolves once the server closed the connection. */
  closed: Promise<void>;
}

export async function rpcClient(port: number): Promise<RpcClient> {
  const socket = connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  const received: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  const decoder = new FrameDecoder();
  socket.on("data", (chunk) => {
    for (const frame of decoder.push(chunk)) {
      if (frame.kind === "message") received.push(JSON.parse(frame.text));
      for (const wake of waiters.splice(0)) wake();
    }
  });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return {
    socket,
    closed,
    send: (bytes) => socket.write(bytes),
    async next(count) {
      while (received.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
      return received.splice(0, count);
    },
  };
}
