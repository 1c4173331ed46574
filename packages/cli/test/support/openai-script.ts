// Scripted OpenAI Chat Completions replies for the loopback server of @tern/ai's tests: streamed
// text and tool calls, one SSE event per chunk, optionally slowed down so a test can act mid-stream.
import { completionsSse, type Exchange } from "../../../ai/test/support/sse-server.js";

export {
  type Exchange,
  type LoopbackServer,
  startLoopbackServer,
} from "../../../ai/test/support/sse-server.js";

let nextId = 1;

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return JSON.stringify({
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    created: 1,
    model: "test-model",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
}

function usage(prompt: number, completion: number): string {
  return JSON.stringify({
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    created: 1,
    model: "test-model",
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  });
}

/** Byte offsets of every event boundary, so the server writes (and waits) event by event. */
function eventOffsets(body: string): number[] {
  const offsets: number[] = [];
  let index = body.indexOf("\n\n");
  while (index !== -1) {
    offsets.push(Buffer.byteLength(body.slice(0, index + 2)));
    index = body.indexOf("\n\n", index + 2);
  }
  return offsets;
}

function sse(lines: string[], delayMs: number): Exchange {
  const body = completionsSse(lines);
  return { kind: "sse", body, chunks: eventOffsets(body), delayMs };
}

export interface ReplyOptions {
  /** Wait between SSE events. */
  delayMs?: number;
  /** Characters per text delta. Default 6. */
  chunkSize?: number;
  /** End the stream without a finish reason, as a server that died mid-reply. */
  unfinished?: boolean;
}

/** A streamed text answer. */
export function textReply(text: string, options: ReplyOptions = {}): Exchange {
  const size = options.chunkSize ?? 6;
  const lines = [chunk({ role: "assistant", content: "" })];
  for (let i = 0; i < text.length; i += size) lines.push(chunk({ content: text.slice(i, i + size) }));
  if (!options.unfinished) lines.push(chunk({}, "stop"), usage(100, Math.ceil(text.length / 4)));
  return sse(lines, options.delayMs ?? 0);
}

export interface ScriptedCall {
  name: string;
  args: Record<string, unknown>;
  id?: string;
}

/** Tool calls (several run in parallel), optionally after some text. */
export function toolReply(calls: ScriptedCall[], options: ReplyOptions & { text?: string } = {}): Exchange {
  const lines = [chunk({ role: "assistant", content: options.text ?? null })];
  calls.forEach((call, index) => {
    const id = call.id ?? `call_${nextId++}`;
    const json = JSON.stringify(call.args);
    lines.push(
      chunk({ tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" } }] }),
    );
    const half = Math.ceil(json.length / 2);
    for (const part of [json.slice(0, half), json.slice(half)])
      if (part) lines.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
  });
  lines.push(chunk({}, "tool_calls"), usage(120, 20));
  return sse(lines, options.delayMs ?? 0);
}

/** What the model was sent: the chat messages of one recorded request. */
export interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: { function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export function wireMessages(body: unknown): WireMessage[] {
  return ((body as { messages?: WireMessage[] }).messages ?? []) as WireMessage[];
}

export function contentText(message: WireMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? "").join("");
  return "";
}
