// A JSON-RPC 2.0 peer over a byte stream pair: it answers the other side's requests from a
// handler table, sends notifications, and makes requests of its own (Copilot's hooks.invoke).
// Bad messages get JSON-RPC errors (parse error, invalid request, method not found) and the
// connection goes on; so do a message over the size limit (its body is skipped unread) and a
// batch over the item limit. A bad frame (no valid Content-Length: the stream is out of step)
// gets an error and then the connection is closed. A batch's items start a slice at a time with
// a turn of the event loop between slices, so one client's batch cannot hold the others up.

import type { Readable, Writable } from "node:stream";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Redactor } from "@tern/ai";
import { EngineError } from "../types.js";
import { encodeFrame, FrameDecoder, MAX_MESSAGE_BYTES } from "./framer.js";

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** Server errors (JSON-RPC's -32000..-32099 range). */
export const NOT_FOUND = -32001;
export const CONFLICT = -32002;
export const UNAUTHORIZED = -32003;
/** The session store is unavailable right now (its database is down): try again shortly. */
export const UNAVAILABLE = -32004;

/** The most items one batch may hold by default. */
export const MAX_BATCH_ITEMS = 1000;
/** How many of a batch's items start before the event loop gets a turn. */
const BATCH_SLICE = 32;

export interface PeerLimits {
  /** The largest message body read, in bytes (default MAX_MESSAGE_BYTES, 8 MiB). */
  maxMessageBytes?: number;
  /** The most items in one batch (default MAX_BATCH_ITEMS). */
  maxBatchItems?: number;
}

export interface PeerOptions extends PeerLimits {
  /** Every frame sent passes it, so the other side sees no secret (default: none). */
  redactor?: Redactor;
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export type RpcHandler = (params: Record<string, unknown>) => unknown;

type Id = string | number | null;

interface Outgoing {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class JsonRpcPeer {
  private readonly decoder: FrameDecoder;
  private readonly maxBatchItems: number;
  private readonly redactor: Redactor | undefined;
  private readonly outgoing = new Map<number, Outgoing>();
  private nextId = 1;
  private closed = false;
  private readonly closeListeners: (() => void)[] = [];

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly handlers: (method: string) => RpcHandler | undefined,
    options: PeerOptions = {},
  ) {
    this.decoder = new FrameDecoder(options.maxMessageBytes ?? MAX_MESSAGE_BYTES);
    this.maxBatchItems = options.maxBatchItems ?? MAX_BATCH_ITEMS;
    this.redactor = options.redactor;
    input.on("data", (chunk: Buffer) => this.receive(chunk));
    input.on("end", () => this.close());
    input.on("close", () => this.close());
    input.on("error", () => this.close());
    output.on("error", () => this.close());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: "2.0", method, params });
  }

  /** A request to the other side; rejects with its error, or when the connection closes. */
  request(method: string, params: unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error("the connection is closed"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.outgoing.set(id, { resolve, reject });
      this.send({ jsonrpc: "2.0", id, method, params });
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const pending of this.outgoing.values()) pending.reject(new Error("the connection closed"));
    this.outgoing.clear();
    for (const listener of this.closeListeners) listener();
  }

  /** Closes the connection from this side once what was written has gone out. */
  private hangUp(): void {
    this.close();
    if (!this.output.destroyed && !this.output.writableEnded) this.output.end();
  }

  private send(message: unknown): void {
    if (this.closed || this.output.destroyed || this.output.writableEnded) return;
    this.output.write(encodeFrame(this.redactor ? this.redactor.json(message) : message));
  }

  private receive(chunk: Buffer): void {
    for (const frame of this.decoder.push(chunk)) {
      if (frame.kind === "error") {
        // The rest of the stream may be out of step (or not JSON-RPC at all): say why and hang up.
        this.send(errorResponse(null, INVALID_REQUEST, `Invalid frame: ${frame.message}`));
        this.hangUp();
        return;
      }
      if (frame.kind === "too_large") {
        const { id, size, limit } = frame;
        const text = `Request too large: ${size} bytes, over the ${limit}-byte limit (maxMessageBytes)`;
        this.send(errorResponse(id, INVALID_REQUEST, text, { code: "too_large", size, limit }));
        continue;
      }
      let message: unknown;
      try {
        message = JSON.parse(frame.text);
      } catch (error) {
        this.send(errorResponse(null, PARSE_ERROR, `Parse error: ${(error as Error).message}`));
        continue;
      }
      void this.dispatch(message);
    }
  }

  private async dispatch(message: unknown): Promise<void> {
    if (!Array.isArray(message)) {
      const response = await this.handle(message);
      if (response) this.send(response);
      return;
    }
    if (message.length === 0) {
      this.send(errorResponse(null, INVALID_REQUEST, "Invalid Request: an empty batch"));
      return;
    }
    if (message.length > this.maxBatchItems) {
      const text = `Invalid Request: a batch of ${message.length} items is over the ${this.maxBatchItems}-item limit (maxBatchItems)`;
      this.send(errorResponse(null, INVALID_REQUEST, text, { code: "too_large", items: message.length }));
      return;
    }
    const pending: Promise<object | undefined>[] = [];
    for (let start = 0; start < message.length; start += BATCH_SLICE) {
      if (start > 0) await nextTurn();
      for (const item of message.slice(start, start + BATCH_SLICE)) pending.push(this.handle(item));
    }
    const responses = (await Promise.all(pending)).filter(Boolean);
    if (responses.length > 0) this.send(responses);
  }

  /** The response to one message (undefined for notifications and responses). */
  private async handle(message: unknown): Promise<object | undefined> {
    if (typeof message !== "object" || message === null)
      return errorResponse(null, INVALID_REQUEST, "Invalid Request: not an object");
    const m = message as Record<string, unknown>;
    const id = validId(m.id) ? (m.id as Id) : null;
    if (typeof m.method !== "string") {
      if ("result" in m || "error" in m) {
        this.settle(m);
        return undefined;
      }
      return errorResponse(id, INVALID_REQUEST, "Invalid Request: no method");
    }
    const isNotification = !("id" in m);
    if (!isNotification && !validId(m.id))
      return errorResponse(null, INVALID_REQUEST, "Invalid Request: id must be a string, number or null");
    const handler = this.handlers(m.method);
    if (!handler)
      return isNotification
        ? undefined
        : errorResponse(id, METHOD_NOT_FOUND, `Method not found: ${m.method}`);
    const params = m.params === undefined ? {} : m.params;
    if (typeof params !== "object" || params === null || Array.isArray(params))
      return isNotification
        ? undefined
        : errorResponse(id, INVALID_PARAMS, "Invalid params: expected an object");
    try {
      const result = await handler(params as Record<string, unknown>);
      return isNotification ? undefined : { jsonrpc: "2.0", id, result: result ?? null };
    } catch (error) {
      if (isNotification) return undefined;
      const { code, text, data } = describe(error);
      return errorResponse(id, code, text, data);
    }
  }

  private settle(m: Record<string, unknown>): void {
    const pending = typeof m.id === "number" ? this.outgoing.get(m.id) : undefined;
    if (!pending) return;
    this.outgoing.delete(m.id as number);
    if ("error" in m && m.error) {
      const error = m.error as { message?: unknown };
      pending.reject(new Error(typeof error.message === "string" ? error.message : "request failed"));
    } else pending.resolve(m.result);
  }
}

function validId(id: unknown): boolean {
  return typeof id === "string" || typeof id === "number" || id === null;
}

function errorResponse(id: Id, code: number, message: string, data?: unknown) {
  return { jsonrpc: "2.0", id, error: { code, message, ...(data !== undefined ? { data } : {}) } };
}

function describe(error: unknown): { code: number; text: string; data?: unknown } {
  if (error instanceof RpcError) return { code: error.code, text: error.message, data: error.data };
  if (error instanceof EngineError) {
    const code =
      error.code === "not_found"
        ? NOT_FOUND
        : error.code === "invalid"
          ? INVALID_PARAMS
          : error.code === "forbidden"
            ? UNAUTHORIZED
            : error.code === "unavailable"
              ? UNAVAILABLE
              : CONFLICT;
    return { code, text: error.message, data: { code: error.code } };
  }
  return { code: INTERNAL_ERROR, text: error instanceof Error ? error.message : String(error) };
}
