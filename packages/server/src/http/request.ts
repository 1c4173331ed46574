// Small HTTP helpers: JSON bodies in, JSON answers and errors out. Every failure a client causes
// is a 4xx with `{ error: { code, message } }`; the server goes on.

import type { IncomingMessage, ServerResponse } from "node:http";
import { EngineError } from "../types.js";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Headers the error response carries (Retry-After, Connection: close). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The largest request body read by default (1 MB); `startServer`'s `maxBodyBytes` overrides it. */
export const MAX_BODY_BYTES = 1_000_000;

/**
 * The request's JSON object body (an empty body is `{}`). Only `application/json` is read: a
 * browser can send text/plain or a form across sites without asking, never JSON. A body over
 * `maxBytes` (by its Content-Length, or as it arrives) is 413 and its connection is closed after
 * the answer, so the rest of the body is never read.
 */
export async function readJson(
  req: IncomingMessage,
  maxBytes: number = MAX_BODY_BYTES,
): Promise<Record<string, unknown>> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  const length = req.headers["content-length"];
  const hasBody = req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
  if ((hasBody || type !== "") && type !== "application/json")
    throw new HttpError(415, "unsupported_media_type", "send the body as Content-Type: application/json");
  const tooLarge = () =>
    new HttpError(413, "too_large", `the request body is over the ${maxBytes}-byte limit`, {
      connection: "close",
    });
  if (length !== undefined && Number(length) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, "bad_json", `the body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new HttpError(400, "bad_json", "the body must be a JSON object");
  return value as Record<string, unknown>;
}

export function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new HttpError(400, "invalid", `"${key}" must be a string`);
  return value;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** Seconds a client refused for load or an unavailable store (503) should wait. */
const RETRY_AFTER_S = 5;

const ENGINE_STATUS: Record<EngineError["code"], number> = {
  not_found: 404,
  invalid: 400,
  forbidden: 403,
  busy: 409,
  locked: 409,
  idle: 409,
  corrupt: 422,
  overloaded: 503,
  unavailable: 503,
};

/**
 * The error as JSON. A server fault (500) says nothing about the server (no path, no stack): the
 * details go to `log`.
 */
export function sendError(res: ServerResponse, error: unknown, log: (text: string) => void = () => {}): void {
  const { status, code, message } = describe(error);
  if (status === 500) log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  if (!res.headersSent) {
    if (status === 503) res.setHeader("retry-after", String(RETRY_AFTER_S));
    if (error instanceof HttpError)
      for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  }
  sendJson(res, status, { error: { code, message } });
}

function describe(error: unknown): { status: number; code: string; message: string } {
  if (error instanceof HttpError) return { status: error.status, code: error.code, message: error.message };
  if (error instanceof EngineError)
    return { status: ENGINE_STATUS[error.code], code: error.code, message: error.message };
  return { status: 500, code: "internal", message: "internal server error (see the server's log)" };
}
