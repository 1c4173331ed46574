// Content-Length framing (the LSP / Copilot CLI wire format): `Content-Length: N\r\n`, optional
// other headers, `\r\n`, then N bytes of UTF-8 JSON. The decoder takes bytes as they come (split
// or batched anyhow) and never throws: a bad header is reported as an error frame. Every header
// line must be `Name: value`, so an HTTP request (a browser's POST to this port) is never read
// as a frame: its request line makes the header bad. After a bad header the byte stream cannot
// be trusted to be in step, so the peer closes the connection. A body over the size limit is
// different: its header said how long it is, so it is skipped as it arrives (never held) and
// reported as too large, and the stream is still in step. A body's chunks are joined once, when
// all of it is there (joining at every chunk made reading a large message quadratic in its size,
// holding up every other client meanwhile).

import { type RequestId, RequestIdSniffer } from "./request-id.js";

const SEPARATOR = Buffer.from("\r\n\r\n");
const MAX_HEADER_BYTES = 8_192;
/** The largest message body read by default (8 MiB); `FrameDecoder`'s argument overrides it. */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

export type Frame =
  | { kind: "message"; text: string }
  /** The stream is out of step: nothing after this can be trusted. */
  | { kind: "error"; message: string }
  /** A body over the limit, skipped; `id` is the request's when its edges showed it. */
  | { kind: "too_large"; size: number; limit: number; id: RequestId };

export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]);
}

export class FrameDecoder {
  private buffer: Buffer = Buffer.alloc(0);
  /** Chunks not yet joined: a large body is joined once, when it is all there, not per chunk. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes the buffer must reach before a frame can end (the current body's end; 0: unknown). */
  private needed = 0;
  /** Bytes of an oversized body still to be thrown away, and what it is known by. */
  private skipping = 0;
  private skipped: { size: number; sniffer: RequestIdSniffer } | undefined;

  constructor(private readonly maxMessageBytes = MAX_MESSAGE_BYTES) {}

  push(chunk: Buffer): Frame[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes < this.needed) return [];
    this.buffer = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.needed = 0;
    const frames = this.frames();
    this.pending = this.buffer.length > 0 ? [this.buffer] : [];
    this.pendingBytes = this.buffer.length;
    return frames;
  }

  private frames(): Frame[] {
    const frames: Frame[] = [];
    for (;;) {
      if (this.skipping > 0) {
        const dropped = Math.min(this.skipping, this.buffer.length);
        this.skipped!.sniffer.push(this.buffer.subarray(0, dropped));
        this.skipping -= dropped;
        this.buffer = this.buffer.subarray(dropped);
        if (this.skipping > 0) break;
        const { size, sniffer } = this.skipped!;
        frames.push({ kind: "too_large", size, limit: this.maxMessageBytes, id: sniffer.id() });
        this.skipped = undefined;
      }
      const end = this.buffer.indexOf(SEPARATOR);
      if (end < 0) {
        if (this.buffer.length > MAX_HEADER_BYTES) {
          frames.push({ kind: "error", message: `no header end within ${MAX_HEADER_BYTES} bytes` });
          this.buffer = Buffer.alloc(0);
        }
        break;
      }
      const length = contentLength(this.buffer.subarray(0, end).toString("latin1"));
      const start = end + SEPARATOR.length;
      if (length === undefined) {
        frames.push({ kind: "error", message: "a frame header without a valid Content-Length" });
        this.buffer = this.buffer.subarray(start);
        continue;
      }
      if (length > this.maxMessageBytes) {
        this.buffer = this.buffer.subarray(start);
        this.skipping = length;
        this.skipped = { size: length, sniffer: new RequestIdSniffer() };
        continue;
      }
      if (this.buffer.length < start + length) {
        this.needed = start + length;
        break;
      }
      frames.push({ kind: "message", text: this.buffer.subarray(start, start + length).toString("utf8") });
      this.buffer = this.buffer.subarray(start + length);
    }
    return frames;
  }
}

const HEADER_LINE = /^[A-Za-z0-9-]+:/;

function contentLength(header: string): number | undefined {
  const lines = header.split("\r\n");
  if (!lines.every((line) => HEADER_LINE.test(line))) return undefined;
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (line.slice(0, colon).trim().toLowerCase() !== "content-length") continue;
    const value = line.slice(colon + 1).trim();
    return /^\d+$/.test(value) ? Number(value) : undefined;
  }
  return undefined;
}
