// A JSON-RPC 2.0 connection with Content-Length framing, the client's side: requests with
// promised results, notifications in, and requests from the server (hooks) answered by handlers.

import type { Readable, Writable } from "node:stream";

export class RpcRemoteError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcRemoteError";
  }
}

type Handler = (params: Record<string, unknown>) => unknown;

const SEPARATOR = Buffer.from("\r\n\r\n");

export class RpcConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly notificationHandlers = new Map<string, Handler>();
  private readonly requestHandlers = new Map<string, Handler>();
  private closed = false;
  private readonly closeListeners: ((error?: Error) => void)[] = [];

  constructor(
    input: Readable,
    private readonly output: Writable,
  ) {
    input.on("data", (chunk: Buffer) => this.receive(chunk));
    input.on("close", () => this.close(new Error("the server connection closed")));
    input.on("error", (error) => this.close(error));
    output.on("error", (error) => this.close(error));
  }

  request<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    if (this.closed) return Promise.reject(new Error("the server connection is closed"));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.write({ jsonrpc: "2.0", id, method, params });
    });
  }

  onNotification(method: string, handler: Handler): void {
    this.notificationHandlers.set(method, handler);
  }

  onRequest(method: string, handler: Handler): void {
    this.requestHandlers.set(method, handler);
  }

  onClose(listener: (error?: Error) => void): void {
    this.closeListeners.push(listener);
  }

  close(error?: Error): void {
    if (this.closed) return;
    this.closed = true;
    for (const { reject } of this.pending.values())
      reject(error ?? new Error("the server connection closed"));
    this.pending.clear();
    for (const listener of this.closeListeners) listener(error);
  }

  private write(message: unknown): void {
    if (this.closed) return;
    const body = Buffer.from(JSON.stringify(message), "utf8");
    this.output.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const end = this.buffer.indexOf(SEPARATOR);
      if (end < 0) return;
      const match = /content-length:\s*(\d+)/i.exec(this.buffer.subarray(0, end).toString("latin1"));
      const start = end + SEPARATOR.length;
      if (!match) {
        this.buffer = this.buffer.subarray(start);
        continue;
      }
      const length = Number(match[1]);
      if (this.buffer.length < start + length) return;
      const text = this.buffer.subarray(start, start + length).toString("utf8");
      this.buffer = this.buffer.subarray(start + length);
      try {
        this.dispatch(JSON.parse(text));
      } catch {
        // A message we cannot read is dropped; the server does not wait on our answers to those.
      }
    }
  }

  private dispatch(message: Record<string, unknown>): void {
    if (typeof message.method !== "string") {
      const waiter = typeof message.id === "number" ? this.pending.get(message.id) : undefined;
      if (!waiter) return;
      this.pending.delete(message.id as number);
      const error = message.error as { code?: number; message?: string; data?: unknown } | undefined;
      if (error)
        waiter.reject(
          new RpcRemoteError(error.code ?? -32603, error.message ?? "request failed", error.data),
        );
      else waiter.resolve(message.result);
      return;
    }
    const params = (message.params ?? {}) as Record<string, unknown>;
    if (!("id" in message)) {
      this.notificationHandlers.get(message.method)?.(params);
      return;
    }
    const handler = this.requestHandlers.get(message.method);
    if (!handler) {
      this.write({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32601, message: `Method not found: ${message.method}` },
      });
      return;
    }
    Promise.resolve()
      .then(() => handler(params))
      .then(
        (result) => this.write({ jsonrpc: "2.0", id: message.id, result: result ?? null }),
        (error: unknown) =>
          this.write({
            jsonrpc: "2.0",
            id: message.id,
            error: { code: -32603, message: error instanceof Error ? error.message : String(error) },
          }),
      );
  }
}
