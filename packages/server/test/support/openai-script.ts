// The scripted model of the server's child-process tests, on @tern/ai/testing: replies of text and
// tool calls in the Chat Completions wire, four characters a delta, 20 prompt and 10 completion tokens.
import { type Exchange, type FauxReply, fauxToolCall, serveScript } from "@tern/ai/testing";

export interface ScriptedReply {
  text?: string;
  toolCalls?: { id: string; name: string; args: Record<string, unknown> }[];
}

export function scriptedReply(reply: ScriptedReply, delayMs = 0): FauxReply {
  const calls = (reply.toolCalls ?? []).map((call) => fauxToolCall(call.name, call.args, call.id));
  const text = reply.text ? [{ type: "text" as const, text: reply.text }] : [];
  return { content: [...text, ...calls], usage: { input: 20, output: 10 }, chunkSize: 4, delayMs };
}

export async function scriptedOpenAi(replies: ScriptedReply[] = [], delayMs = 0) {
  const server = await serveScript(replies.map((reply) => scriptedReply(reply, delayMs)));
  return {
    /** The base URL to pass as --base-url. */
    baseUrl: server.providerUrl,
    requests: server.requests,
    push: (...more: ScriptedReply[]) => server.push(...more.map((reply) => scriptedReply(reply, delayMs))),
    /** Raw exchanges (an error status, a Retry-After header) in the same queue. */
    pushExchange: (...more: Exchange[]) => server.push(...more),
    close: server.close,
  };
}
