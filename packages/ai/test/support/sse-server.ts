import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

/** What the loopback server should do with one request. */
export type Exchange =
  | {
      kind: "sse";
      body: string;
      chunks?: number[];
      status?: number;
      headers?: Record<string, string>;
      cutAfter?: number;
      /** Stop writing at this byte offset and hold the response open until the client goes away. */
      holdAfter?: number;
      delayMs?: number;
    }
  | { kind: "json"; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: "hang" };

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: unknown;
}

/**
 * A real HTTP server on 127.0.0.1 that answers each request with the next scripted exchange:
 * SSE bytes (optionally split at given byte offsets, or cut short), a JSON error, or nothing.
 */
export async function startLoopbackServer(exchanges: Exchange[] = []) {
  const queue = [...exchanges];
  const requests: RecordedRequest[] = [];
  const waiting = new Set<() => void>();
  const open = new Set<ServerResponse>();
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {}
    requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
    for (const check of [...waiting]) check();
    const exchange = queue.shift();
    if (!exchange) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "loopback server: no scripted exchange left" } }));
      return;
    }
    open.add(res);
    res.on("close", () => open.delete(res));
    if (exchange.kind === "hang") return;
    if (exchange.kind === "json") {
      res.writeHead(exchange.status, { "content-type": "application/json", ...exchange.headers });
      res.end(JSON.stringify(exchange.body));
      return;
    }
    res.writeHead(exchange.status ?? 200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      ...exchange.headers,
    });
    const bytes = Buffer.from(exchange.body, "utf8");
    const end = exchange.cutAfter ?? exchange.holdAfter ?? bytes.length;
    const cuts = [...(exchange.chunks ?? []).filter((c) => c > 0 && c < end), end].sort((a, b) => a - b);
    let from = 0;
    for (const to of cuts) {
      if (res.destroyed) return;
      // Wait for each write to flush so a cut that follows cannot swallow it.
      await new Promise<void>((resolve) => res.write(bytes.subarray(from, to), () => resolve()));
      from = to;
      if (exchange.delayMs) await new Promise((r) => setTimeout(r, exchange.delayMs));
    }
    // A held stream stays open (closed by the client, or by close()).
    if (exchange.holdAfter !== undefined) return;
    // A cut stream ends the socket without the rest of the body: the client sees a truncated response.
    if (exchange.cutAfter !== undefined) res.socket?.destroy();
    else res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    push: (...more: Exchange[]) => queue.push(...more),
    /** Resolves once `count` requests have arrived (the test's timeout is the ceiling). */
    requestsReceived: (count: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (requests.length < count) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
      }),
    close: async () => {
      for (const res of open) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type LoopbackServer = Awaited<ReturnType<typeof startLoopbackServer>>;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      data += chunk;
    });
    req.on("end", () => resolve(data));
    req.on("error", reject);
  });
}

const FIXTURES = fileURLToPath(new URL("../fixtures/provider-streams/", import.meta.url));

/** The payload lines of a `*.chunks.txt` capture. */
export function fixtureLines(path: string): string[] {
  return readFileSync(FIXTURES + path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
}

export function fixtureText(path: string): string {
  return readFileSync(FIXTURES + path, "utf8");
}

/** Chat Completions SSE: `data:` lines and a final `[DONE]`. */
export function completionsSse(lines: string[]): string {
  return `${lines.map((line) => `data: ${line}\n\n`).join("")}data: [DONE]\n\n`;
}

/** Anthropic and Responses SSE: an `event:` line named after each payload's `type`. */
export function typedSse(lines: string[]): string {
  return lines
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
    .join("");
}
