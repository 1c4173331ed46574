// A scripted model at the HTTP boundary whose answer depends on the conversation, not on a queue:
// runs of many sessions on several workers, retried after kills, all ask it at once. A user
// message gets a `note` tool call; a tool result gets the final text. Served by @tern/ai/testing
// in the Chat Completions wire after `delayMs`, so a kill can land mid-turn.
import { setTimeout as sleep } from "node:timers/promises";
import { type ScriptServer, serveScript, textReply, toolReply, wireMessages } from "@tern/ai/testing";

export interface ModelServer {
  baseUrl: string;
  /** Replies wait from now on until `release()`: a run stays mid-turn while a test acts. */
  hold(): void;
  release(): void;
  /** Requests received so far. */
  readonly requests: number;
  close(): Promise<void>;
}

export async function startModelServer(delayMs: number): Promise<ModelServer> {
  const usage = { input: 20, output: 10 };
  const server: ScriptServer = await serveScript([], {
    fallback: async ({ body, index }) => {
      await sleep(delayMs);
      const last = wireMessages(body).at(-1);
      if (last?.role === "tool") return textReply(`done after ${last.tool_call_id}`, { usage });
      const call = { id: `call-${process.pid}-${index + 1}`, name: "note", args: { n: index + 1 } };
      return toolReply([call], { text: "noting", usage });
    },
  });
  return {
    baseUrl: server.providerUrl,
    hold: server.hold,
    release: server.release,
    get requests() {
      return server.requests.length;
    },
    close: server.close,
  };
}
