// A scripted OpenAI-compatible model for a server running as a child process: replies are turned
// into Chat Completions SSE (text in small deltas, tool calls with streamed arguments) and served
// in order by @tern/ai's loopback test server.
import { completionsSse, type Exchange, startLoopbackServer } from "../../../ai/test/support/sse-server.js";

export interface ScriptedReply {
  text?: string;
  toolCalls?: { id: string; name: string; args: Record<string, unknown> }[];
}

function chunk(delta: Record<string, unknown>, finish: string | null = null, usage?: object): string {
  return JSON.stringify({
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    created: 0,
    model: "scripted",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  });
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export function replySse(reply: ScriptedReply): string {
  const lines = [chunk({ role: "assistant", content: "" })];
  for (const piece of pieces(reply.text ?? "", 4)) lines.push(chunk({ content: piece }));
  (reply.toolCalls ?? []).forEach((call, index) => {
    lines.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      }),
    );
    for (const piece of pieces(JSON.stringify(call.args), 6))
      lines.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  const finish = reply.toolCalls?.length ? "tool_calls" : "stop";
  lines.push(chunk({}, finish, { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 }));
  return completionsSse(lines);
}

export async function scriptedOpenAi(replies: ScriptedReply[] = [], delayMs = 0) {
  const toExchange = (reply: ScriptedReply): Exchange => ({ kind: "sse", body: replySse(reply), delayMs });
  const server = await startLoopbackServer(replies.map(toExchange));
  return {
    /** The base URL to pass as --base-url. */
    baseUrl: `${server.baseUrl}/v1`,
    requests: server.requests,
    push: (...more: ScriptedReply[]) => server.push(...more.map(toExchange)),
    /** Raw exchanges (an error status, a Retry-After header) in the same queue. */
    pushExchange: (...more: Exchange[]) => server.push(...more),
    close: server.close,
  };
}
