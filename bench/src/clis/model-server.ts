// The loopback model server of `npm run bench clis`: one per CLI run, on 127.0.0.1 and a free
// port, answering each CLI in its own wire format (Chat Completions, Responses, Anthropic
// Messages, Gemini). It plays the task of task.ts: a read of file k while the request carries
// the markers of files 0..k-1, then the answer. It checks on its side that every tool result
// came back (the markers), and records when the first model request arrived. Requests that
// offer no usable tool and carry no marker (titles, quota probes, classifiers) get a short text
// and are counted as auxiliary. Unknown paths get 404 and are listed.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { ANSWER_CHUNK_CHARS, FILES, type Task, turnOf } from "./task.js";
import { type OfferedTool, offeredTools, replyFrames, type Wire } from "./wire.js";

export interface ServerLog {
  /** process.hrtime.bigint() of the first model request, if any came. */
  firstRequestNs?: bigint;
  /** Model requests of the task (those that carried a tool or a marker). */
  turns: number;
  auxiliary: number;
  /** The answer was sent in reply to a request carrying all five files' contents. */
  answered: boolean;
  /** Failed checks: a request whose markers were not 0..k-1, or that offered no tool to read with. */
  problems: string[];
  /** Paths the server does not know (404). */
  unknown: string[];
}

const READ_TOOLS = ["read", "Read", "read_file", "view"];
const SHELL_TOOLS = ["bash", "Bash", "shell", "shell_command", "exec_command", "run_shell_command"];
const PATH_KEYS = ["file_path", "filePath", "absolute_path", "path", "file"];
const COMMAND_KEYS = ["command", "cmd"];

/** The call that reads `file` with the best tool on offer: a read tool, else a shell `cat`. */
export function readCall(
  tools: OfferedTool[],
  file: string,
): { name: string; args: Record<string, unknown> } | undefined {
  const read = tools.find((t) => READ_TOOLS.includes(t.name));
  if (read) {
    const props = Object.keys(read.schema.properties ?? {});
    const key = PATH_KEYS.find((k) => props.includes(k)) ?? read.schema.required?.[0];
    if (key) return { name: read.name, args: { [key]: file } };
  }
  const shell = tools.find((t) => SHELL_TOOLS.includes(t.name));
  if (!shell) return undefined;
  const props = shell.schema.properties ?? {};
  const key = COMMAND_KEYS.find((k) => k in props);
  if (!key) return undefined;
  const type = props[key]?.type;
  const isArray = type === "array" || (Array.isArray(type) && type.includes("array"));
  return { name: shell.name, args: { [key]: isArray ? ["cat", file] : `cat ${JSON.stringify(file)}` } };
}

function wireOf(path: string): Wire | "count" | "models" | "gemini-json" | undefined {
  if (path.endsWith("/chat/completions")) return "chat";
  if (path.endsWith("/responses")) return "responses";
  if (path.endsWith("/messages/count_tokens") || path.endsWith(":countTokens")) return "count";
  if (path.endsWith("/messages")) return "anthropic";
  if (path.endsWith(":streamGenerateContent")) return "gemini";
  if (path.endsWith(":generateContent")) return "gemini-json";
  if (path.endsWith("/models")) return "models";
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export interface ModelServer {
  port: number;
  log: ServerLog;
  close(): Promise<void>;
}

export async function startModelServer(task: Task, workdir: string, model: string): Promise<ModelServer> {
  const log: ServerLog = { turns: 0, auxiliary: 0, answered: false, problems: [], unknown: [] };
  let calls = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const now = process.hrtime.bigint();
    const path = (req.url ?? "/").split("?")[0]!;
    const raw = await readBody(req);
    const kind = wireOf(path);
    if (kind === undefined) {
      log.unknown.push(`${req.method} ${path}`);
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
      return;
    }
    if (kind === "models") {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ object: "list", data: [{ id: model, object: "model" }], models: [] }));
      return;
    }
    if (kind === "count") {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end('{"input_tokens":100,"totalTokens":100}');
      return;
    }
    log.firstRequestNs ??= now;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      log.problems.push(`${path}: body is not JSON`);
      res.writeHead(400).end();
      return;
    }
    if (kind === "gemini-json") {
      // Gemini's side calls (next-speaker check, routing, loop detection) ask for JSON.
      log.auxiliary++;
      const text = JSON.stringify({ reasoning: "bench", next_speaker: "user", model_choice: "flash" });
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
          usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 },
        }),
      );
      return;
    }
    const tools = offeredTools(kind, body);
    const turn = turnOf(task, raw);
    const next =
      turn !== undefined && turn < FILES ? readCall(tools, join(workdir, task.files[turn]!.name)) : undefined;
    let reply: Parameters<typeof replyFrames>[1];
    if (turn === undefined) {
      log.problems.push(
        `request ${log.turns + 1}: file contents out of order (a tool result did not come back)`,
      );
      res
        .writeHead(400, { "content-type": "application/json" })
        .end('{"error":{"message":"bench: tool results out of order"}}');
      return;
    }
    if (turn === FILES) {
      log.turns++;
      log.answered = true;
      reply = { text: task.answer, chunk: ANSWER_CHUNK_CHARS };
    } else if (next) {
      log.turns++;
      reply = { call: { ...next, id: `call_${++calls}` } };
    } else if (turn === 0 && tools.length === 0) {
      log.auxiliary++;
      reply = { text: "Five notes", chunk: 64 };
    } else {
      log.problems.push(
        `request ${log.turns + 1}: no read or shell tool among ${tools.map((t) => t.name).join(", ") || "none"}`,
      );
      res
        .writeHead(400, { "content-type": "application/json" })
        .end('{"error":{"message":"bench: no tool to read with"}}');
      return;
    }
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    for (const frame of replyFrames(kind, reply, model)) res.write(frame);
    res.end();
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log.problems.push(`server: ${(error as Error).message}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
