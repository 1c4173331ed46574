// The CLI tests' reply defaults on @tern/ai/testing's shorthands: text in six-character deltas
// with 100 prompt tokens and an output of a token per four characters, tool calls with 120 and
// 20, call ids `call_<n>` — the figures the tests' expected usage lines were written against.
import * as testing from "@tern/ai/testing";

export interface ReplyOptions {
  /** Wait before each streamed event. */
  delayMs?: number;
  /** Characters per text delta. Default 6. */
  chunkSize?: number;
  /** End the stream without a finish reason, as a server that died mid-reply. */
  unfinished?: boolean;
}

function options({ unfinished, chunkSize, ...rest }: ReplyOptions): testing.ReplyOptions {
  return { ...rest, chunkSize: chunkSize ?? 6, ...(unfinished && { cut: true }) };
}

/** A streamed text answer. */
export function textReply(text: string, replyOptions: ReplyOptions = {}): testing.FauxReply {
  const usage = { input: 100, output: Math.ceil(text.length / 4) };
  return testing.textReply(text, { ...options(replyOptions), usage });
}

let nextId = 1;

/** Tool calls (several run in parallel), optionally after some text. */
export function toolReply(
  calls: testing.ScriptedCall[],
  replyOptions: ReplyOptions & { text?: string } = {},
): testing.FauxReply {
  const named = calls.map((call) => ({ ...call, id: call.id ?? `call_${nextId++}` }));
  const { text, ...rest } = replyOptions;
  return testing.toolReply(named, {
    ...options(rest),
    ...(text && { text }),
    usage: { input: 120, output: 20 },
  });
}
