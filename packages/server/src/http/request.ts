// Small HTTP helpers: JSON bodies in, JSON answers and errors out. Every failure a client causes
// is a 4xx with `{ error: { code, message } }`; the server goes on.

import type { IncomingMessage, ServerResponse } from "node:http";
import { EngineError } from "../types.js";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const MAX_BODY_BYTES = 1_000_000;

/** The request's JSON object body (an empty body is `{}`). */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw new HttpError(413, "too_large", `request body over ${MAX_BODY_BYTES} bytes`);
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

export function sendError(res: ServerResponse, error: unknown): void {
  const { status, code, message } = describe(error);
  sendJson(res, status, { error: { code, message } });
}

function describe(error: unknown): { status: number; code: string; message: string } {
  if (error instanceof HttpError) return { status: error.status, code: error.code, message: error.message };
  if (error instanceof EngineError) {
    const status = error.code === "not_found" ? 404 : error.code === "invalid" ? 400 : 409;
    return { status, code: error.code, message: error.message };
  }
  return { status: 500, code: "internal", message: error instanceof Error ? error.message : String(error) };
}
