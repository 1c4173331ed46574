// The scripted model of `npm run bench web-compare`: one OpenAI Chat Completions server on
// 127.0.0.1 that every page's backend (tern serve, opencode serve, pi-web-ui's in-page agent)
// talks to. Each chat request gets the same streamed Markdown answer, chunk by chunk with a
// pause between chunks (so "first token shown" and "answer done" are different moments); a
// request whose system prompt asks for a title gets a short title instead, so the answer's
// marker only ever reaches the page as the answer. It answers CORS preflights, since pi-web-ui
// calls the model from the browser. Unknown paths get 404 and are counted.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { replyFrames } from "../clis/wire.js";

export const MODEL = "bench-model";
/** The answer's first word: its appearance on the page is "the first token shown". */
export const FIRST_WORD = "Lighthouse";
/** The answer's last word: its appearance is "the answer done". */
export const LAST_WORD = "Quillwort";
export const ANSWER = `${FIRST_WORD} keepers kept logs.\n\n${Array.from(
  { length: 12 },
  (_, i) => `- note ${i + 1}: the lamp was trimmed and the glass cleaned`,
).join("\n")}\n\nLast entry: \`${LAST_WORD}\`.`;
const CHUNK_CHARS = 16;

export interface WebModelServer {
  url: string;
  /** Chat requests answered (answers and titles) and paths it did not know. */
  log: { answers: number; titles: number; unknown: string[] };
  close(): Promise<void>;
}

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function asksForTitle(body: { messages?: { role?: string; content?: unknown }[] }): boolean {
  const system = (body.messages ?? []).filter((m) => m.role === "system" || m.role === "developer");
  return system.some((m) => /\btitle\b/i.test(JSON.stringify(m.content ?? "")));
}

/** Starts the server; `pauseMs` is the gap between answer chunks (0 for none). */
export async function startWebModelServer(pauseMs = 15): Promise<WebModelServer> {
  const log: WebModelServer["log"] = { answers: 0, titles: 0, unknown: [] };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0]!;
    if (req.method === "OPTIONS") return void res.writeHead(204, CORS).end();
    const raw = await readBody(req);
    if (path.endsWith("/models")) {
      res
        .writeHead(200, { ...CORS, "content-type": "application/json" })
        .end(JSON.stringify({ object: "list", data: [{ id: MODEL, object: "model" }] }));
      return;
    }
    if (!path.endsWith("/chat/completions")) {
      log.unknown.push(`${req.method} ${path}`);
      res
        .writeHead(404, { ...CORS, "content-type": "application/json" })
        .end('{"error":{"message":"not found"}}');
      return;
    }
    let body: { messages?: { role?: string; content?: unknown }[] };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      res.writeHead(400, CORS).end('{"error":{"message":"body is not JSON"}}');
      return;
    }
    const title = asksForTitle(body);
    if (title) log.titles++;
    else log.answers++;
    res.writeHead(200, { ...CORS, "content-type": "text/event-stream", "cache-control": "no-cache" });
    const frames = replyFrames("chat", { text: title ? "Bench title" : ANSWER, chunk: CHUNK_CHARS }, MODEL);
    for (const frame of frames) {
      res.write(frame);
      if (pauseMs > 0 && !title) await sleep(pauseMs);
    }
    res.end();
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, CORS);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
