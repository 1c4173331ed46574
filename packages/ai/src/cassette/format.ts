// The cassette file: JSONL, a header line then one model exchange per line, so a recording reads
// and diffs like any text file. Parsing checks every line and names the first bad one; a cassette
// is either wholly usable or refused before anything is sent.
import { readFileSync } from "node:fs";

export const CASSETTE_FORMAT = "tern-cassette";
export const CASSETTE_VERSION = 1;

/** Line 1: what the file is, and which version of this format. */
export interface CassetteHeader {
  format: typeof CASSETTE_FORMAT;
  version: number;
  created: string;
}

/** What was sent, keys removed: the body is parsed JSON when it was JSON, else `bodyText`. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  bodyText?: string;
}

/** One piece of the body as the network delivered it, `ms` after the headers arrived. */
export type RecordedChunk = { ms: number; text: string } | { ms: number; base64: string };

/** How the body ended: read to its end, cut by the network, or cancelled by the reader. */
export type StreamEnd = "complete" | "error" | "cancelled";

export interface RecordedResponse {
  status: number;
  statusText?: string;
  /** Only the headers that matter on replay (content type, Retry-After, request ids, rate limits). */
  headers: Record<string, string>;
  /** Time from sending the request to its headers. */
  headersMs: number;
  chunks: RecordedChunk[];
  end: StreamEnd;
  /** Why the body ended early (`end: "error"`). */
  error?: string;
}

/** A request that got no response at all (refused connection, DNS failure). */
export interface RecordedFailure {
  name: string;
  message: string;
  /** The underlying system error's message (undici's `fetch failed` has one). */
  cause?: string;
  code?: string;
}

export type Exchange =
  | { request: RecordedRequest; response: RecordedResponse }
  | { request: RecordedRequest; failure: RecordedFailure };

export interface Cassette {
  path: string;
  header: CassetteHeader;
  exchanges: Exchange[];
}

/** A cassette that cannot be used; `reason` says which kind, the message says where and why. */
export class CassetteError extends Error {
  override name = "CassetteError";
  constructor(
    readonly reason: "missing" | "unreadable" | "corrupt" | "version" | "mismatch" | "write",
    message: string,
  ) {
    super(message);
  }
}

export function newHeader(): CassetteHeader {
  return { format: CASSETTE_FORMAT, version: CASSETTE_VERSION, created: new Date().toISOString() };
}

export function headerLine(header: CassetteHeader): string {
  return `${JSON.stringify(header)}\n`;
}

export function exchangeLine(exchange: Exchange): string {
  return `${JSON.stringify(exchange)}\n`;
}

/** Reads and checks a whole cassette; throws CassetteError naming the file and line. */
export function readCassette(path: string): Cassette {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new CassetteError("missing", `cassette ${path}: no such file`);
    throw new CassetteError("unreadable", `cassette ${path}: ${(error as Error).message}`);
  }
  return parseCassette(path, text);
}

export function parseCassette(path: string, text: string): Cassette {
  const lines = text.split("\n");
  const parsed: { line: number; value: unknown }[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      parsed.push({ line: index + 1, value: JSON.parse(line) });
    } catch (error) {
      throw corrupt(path, index + 1, `not JSON (${(error as Error).message})`);
    }
  });
  const first = parsed.shift();
  if (!first) throw corrupt(path, 1, "empty file: a cassette starts with its header line");
  const header = checkHeader(path, first.value);
  const exchanges = parsed.map(({ line, value }) => {
    const problem = exchangeProblem(value);
    if (problem) throw corrupt(path, line, `not an exchange: ${problem}`);
    return value as Exchange;
  });
  return { path, header, exchanges };
}

function checkHeader(path: string, value: unknown): CassetteHeader {
  const header = value as Partial<CassetteHeader> | null;
  if (header === null || typeof header !== "object" || header.format !== CASSETTE_FORMAT)
    throw corrupt(path, 1, `not a cassette header (expected {"format":"${CASSETTE_FORMAT}",...})`);
  if (header.version !== CASSETTE_VERSION)
    throw new CassetteError(
      "version",
      `cassette ${path}: version ${JSON.stringify(header.version)} is not supported (this tern reads version ${CASSETTE_VERSION}); record it again`,
    );
  return header as CassetteHeader;
}

/** What is wrong with a parsed exchange line, or undefined when it is well formed. */
function exchangeProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return "expected an object";
  const request = value.request;
  if (!isRecord(request)) return "no request";
  if (typeof request.method !== "string" || typeof request.url !== "string")
    return "request.method and request.url must be strings";
  if (!isRecord(request.headers)) return "request.headers must be an object";
  if (isRecord(value.failure)) {
    const failure = value.failure;
    return typeof failure.message === "string" ? undefined : "failure.message must be a string";
  }
  const response = value.response;
  if (!isRecord(response)) return "neither a response nor a failure";
  if (typeof response.status !== "number") return "response.status must be a number";
  if (!isRecord(response.headers)) return "response.headers must be an object";
  if (typeof response.headersMs !== "number") return "response.headersMs must be a number";
  if (!["complete", "error", "cancelled"].includes(response.end as string))
    return "response.end must be complete, error or cancelled";
  if (!Array.isArray(response.chunks)) return "response.chunks must be an array";
  for (const [index, chunk] of response.chunks.entries()) {
    if (!isRecord(chunk) || typeof chunk.ms !== "number")
      return `response.chunks[${index}] needs a number ms`;
    if (typeof chunk.text !== "string" && typeof chunk.base64 !== "string")
      return `response.chunks[${index}] has neither text nor base64`;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function corrupt(path: string, line: number, detail: string): CassetteError {
  return new CassetteError("corrupt", `cassette ${path} line ${line}: ${detail}`);
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A chunk as text when its bytes are whole UTF-8 (readable in a diff), else as base64. */
export function chunkOf(bytes: Uint8Array, ms: number): RecordedChunk {
  try {
    return { ms, text: strictUtf8.decode(bytes) };
  } catch {
    return { ms, base64: Buffer.from(bytes).toString("base64") };
  }
}

export function chunkBytes(chunk: RecordedChunk): Uint8Array {
  return "text" in chunk ? Buffer.from(chunk.text, "utf8") : Buffer.from(chunk.base64, "base64");
}
