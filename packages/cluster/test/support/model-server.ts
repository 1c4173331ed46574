// A scripted model at the HTTP boundary whose answer depends on the conversation, not on a queue:
// runs of many sessions on several workers, retried after kills, all ask it at once. A user
// message gets a `note` tool call; a tool result gets the final text. Replies stream as Chat
// Completions SSE (the test supports' encoder) after `delayMs`, so a kill can land mid-turn.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { replySse } from "../../../server/test/support/openai-script.js";

export interface ModelServer {
  baseUrl: string;
  /** Replies wait from now on until `release()`: a run stays mid-turn while a test acts. */
  hold(): void;
  release(): void;
  /** Requests received so far. */
  readonly requests: number;
  close(): Promise<void>;
}

interface WireMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
}

export async function startModelServer(delayMs: number): Promise<ModelServer> {
  let calls = 0;
  let held: (() => void)[] | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { messages: WireMessage[] };
      const last = body.messages.at(-1);
      const n = ++calls;
      const reply =
        last?.role === "tool"
          ? { text: `done after ${last.tool_call_id}` }
          : { text: "noting", toolCalls: [{ id: `call-${process.pid}-${n}`, name: "note", args: { n } }] };
      const answer = () =>
        setTimeout(() => {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.end(replySse(reply));
        }, delayMs);
      if (held) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    hold: () => {
      held ??= [];
    },
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const answer of waiting) answer();
    },
    get requests() {
      return calls;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
