// A scripted reply in each wire format tern's providers speak: the server-sent events a real
// provider would stream for it (framed as the captures in test/fixtures/provider-streams show),
// and the HTTP error body that provider answers a failed request with. Pure functions: serve.ts
// writes what they return.
import { chunks, replyOutputTokens, type ScriptedReply } from "../providers/faux.js";
import type { ErrorKind, StopReason, ToolCall } from "../types.js";

/** The wire formats a scripted model can be served in: one per HTTP provider of @tern/ai. */
export type Wire = "openai-completions" | "openai-responses" | "anthropic-messages";

export const WIRES: readonly Wire[] = ["openai-completions", "openai-responses", "anthropic-messages"];

/** One reply as events: `content` streams the reply's parts, `end` finishes (or fails) it. */
export interface WireEvents {
  content: string[];
  end: string[];
}

/** Usage a reply reports on the wire: scripted counts, or `input` and an estimate of the output. */
export interface WireUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export function wireUsage(reply: ScriptedReply, input: number): WireUsage {
  return {
    input: reply.usage?.input ?? input,
    output: reply.usage?.output ?? replyOutputTokens(reply.content),
    cacheRead: reply.usage?.cacheRead ?? 0,
    cacheWrite: reply.usage?.cacheWrite ?? 0,
  };
}

/** Chat Completions framing: `data:` lines and a final `[DONE]`. */
export function completionsSse(payloads: string[]): string {
  return `${payloads.map((line) => `data: ${line}\n\n`).join("")}data: [DONE]\n\n`;
}

/** Anthropic and Responses framing: an `event:` line named after each payload's `type`. */
export function typedSse(payloads: string[]): string {
  return payloads.map(typedEvent).join("");
}

function typedEvent(payload: string): string {
  return `event: ${(JSON.parse(payload) as { type: string }).type}\ndata: ${payload}\n\n`;
}

/** The events of `reply` in `wire`; `n` numbers the reply (ids), `input` is its default input usage. */
export function encodeReply(wire: Wire, reply: ScriptedReply, n: number, input: number): WireEvents {
  const usage = wireUsage(reply, input);
  const size = Math.max(1, reply.chunkSize ?? 4);
  if (wire === "openai-completions") return completionsEvents(reply, usage, size);
  if (wire === "openai-responses") return responsesEvents(reply, usage, size, n);
  return anthropicEvents(reply, usage, size, n);
}

type Finish = Exclude<StopReason, "error" | "aborted">;

function stopOf(reply: ScriptedReply): Finish {
  if (reply.stopReason) return reply.stopReason;
  return reply.content.some((part) => part.type === "toolCall") ? "toolUse" : "stop";
}

function completionsEvents(reply: ScriptedReply, usage: WireUsage, size: number): WireEvents {
  const chunk = (delta: object, finish: string | null = null) =>
    JSON.stringify({
      id: "chatcmpl-scripted",
      object: "chat.completion.chunk",
      created: 0,
      model: "scripted",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const content = [chunk({ role: "assistant", content: "" })];
  let index = 0;
  for (const part of reply.content) {
    if (part.type === "toolCall") {
      const at = index++;
      const open = { index: at, id: part.id, type: "function", function: { name: part.name, arguments: "" } };
      content.push(chunk({ tool_calls: [open] }));
      for (const piece of chunks(JSON.stringify(part.arguments), size))
        content.push(chunk({ tool_calls: [{ index: at, function: { arguments: piece } }] }));
    } else if (part.type === "text") {
      for (const piece of chunks(part.text, size)) content.push(chunk({ content: piece }));
    } else {
      for (const piece of chunks(part.thinking, size)) content.push(chunk({ reasoning_content: piece }));
    }
  }
  const frame = (payload: string) => `data: ${payload}\n\n`;
  if (reply.error) {
    const error = { error: openAiError(reply.error.kind, reply.error.message).error };
    return { content: content.map(frame), end: [frame(JSON.stringify(error))] };
  }
  const finish = { stop: "stop", length: "length", toolUse: "tool_calls" }[stopOf(reply)];
  const counts = {
    prompt_tokens: usage.input + usage.cacheRead,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.cacheRead + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead },
  };
  const last = JSON.stringify({
    id: "chatcmpl-scripted",
    object: "chat.completion.chunk",
    created: 0,
    model: "scripted",
    choices: [],
    usage: counts,
  });
  return { content: content.map(frame), end: [frame(chunk({}, finish)), frame(last), "data: [DONE]\n\n"] };
}

function responsesEvents(reply: ScriptedReply, usage: WireUsage, size: number, n: number): WireEvents {
  const id = `resp_scripted_${n}`;
  const events: object[] = [
    { type: "response.created", response: { id, object: "response", status: "in_progress", output: [] } },
  ];
  const output: object[] = [];
  reply.content.forEach((part, output_index) => {
    let item: Record<string, unknown>;
    const deltas: object[] = [];
    if (part.type === "toolCall") {
      item = { id: `fc_${n}_${output_index}`, type: "function_call", call_id: part.id, name: part.name };
      const json = JSON.stringify(part.arguments);
      events.push({ type: "response.output_item.added", output_index, item: { ...item, arguments: "" } });
      for (const delta of chunks(json, size))
        deltas.push({
          type: "response.function_call_arguments.delta",
          output_index,
          item_id: item.id,
          delta,
        });
      item = { ...item, arguments: json, status: "completed" };
    } else if (part.type === "text") {
      item = { id: `msg_${n}_${output_index}`, type: "message", role: "assistant", status: "completed" };
      events.push({ type: "response.output_item.added", output_index, item: { ...item, content: [] } });
      for (const delta of chunks(part.text, size))
        deltas.push({
          type: "response.output_text.delta",
          output_index,
          item_id: item.id,
          content_index: 0,
          delta,
        });
      item = { ...item, content: [{ type: "output_text", text: part.text, annotations: [] }] };
    } else {
      item = { id: `rs_${n}_${output_index}`, type: "reasoning" };
      events.push({ type: "response.output_item.added", output_index, item: { ...item, summary: [] } });
      for (const delta of chunks(part.thinking, size))
        deltas.push({
          type: "response.reasoning_summary_text.delta",
          output_index,
          item_id: item.id,
          summary_index: 0,
          delta,
        });
      item = { ...item, summary: [{ type: "summary_text", text: part.thinking }] };
    }
    events.push(...deltas, { type: "response.output_item.done", output_index, item });
    output.push(item);
  });
  const content = events.map((event) => typedEvent(JSON.stringify(event)));
  if (reply.error) {
    const { code } = openAiError(reply.error.kind, reply.error.message).error;
    const failure = { type: "error", code, message: reply.error.message, param: null };
    return { content, end: [typedEvent(JSON.stringify(failure))] };
  }
  const stop = stopOf(reply);
  const done = {
    type: stop === "length" ? "response.incomplete" : "response.completed",
    response: {
      id,
      object: "response",
      status: stop === "length" ? "incomplete" : "completed",
      ...(stop === "length" && { incomplete_details: { reason: "max_output_tokens" } }),
      output,
      usage: {
        input_tokens: usage.input + usage.cacheRead,
        input_tokens_details: { cached_tokens: usage.cacheRead },
        output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input + usage.cacheRead + usage.output,
      },
    },
  };
  return { content, end: [typedEvent(JSON.stringify(done))] };
}

function anthropicEvents(reply: ScriptedReply, usage: WireUsage, size: number, n: number): WireEvents {
  const events: object[] = [
    {
      type: "message_start",
      message: {
        id: `msg_scripted_${n}`,
        type: "message",
        role: "assistant",
        model: "scripted",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input,
          cache_creation_input_tokens: usage.cacheWrite,
          cache_read_input_tokens: usage.cacheRead,
          output_tokens: 1,
        },
      },
    },
  ];
  reply.content.forEach((part, index) => {
    const [block, deltas] = anthropicBlock(part, size);
    events.push(
      { type: "content_block_start", index, content_block: block },
      ...deltas.map((delta) => ({ type: "content_block_delta", index, delta })),
      { type: "content_block_stop", index },
    );
  });
  const content = events.map((event) => typedEvent(JSON.stringify(event)));
  if (reply.error) {
    const body = anthropicError(reply.error.kind, reply.error.message);
    return { content, end: [typedEvent(JSON.stringify(body))] };
  }
  const stop_reason = { stop: "end_turn", length: "max_tokens", toolUse: "tool_use" }[stopOf(reply)];
  const end = [
    {
      type: "message_delta",
      delta: { stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output },
    },
    { type: "message_stop" },
  ];
  return { content, end: end.map((event) => typedEvent(JSON.stringify(event))) };
}

function anthropicBlock(part: ScriptedReply["content"][number], size: number): [object, object[]] {
  if (part.type === "toolCall") {
    const call = part as ToolCall;
    const pieces = [...chunks(JSON.stringify(call.arguments), size)];
    return [
      { type: "tool_use", id: call.id, name: call.name, input: {} },
      pieces.map((partial_json) => ({ type: "input_json_delta", partial_json })),
    ];
  }
  if (part.type === "text")
    return [
      { type: "text", text: "" },
      [...chunks(part.text, size)].map((text) => ({ type: "text_delta", text })),
    ];
  return [
    { type: "thinking", thinking: "", signature: "" },
    [...chunks(part.thinking, size)].map((thinking) => ({ type: "thinking_delta", thinking })),
  ];
}

/** The HTTP status a scripted error without one is answered with. */
const KIND_STATUS: Record<ErrorKind, number> = {
  auth: 401,
  rate_limit: 429,
  overloaded: 529,
  context_overflow: 400,
  invalid_request: 400,
  server: 500,
  network: 502,
  aborted: 499,
  unknown: 500,
};

export function errorStatus(kind: ErrorKind, status?: number): number {
  return status ?? KIND_STATUS[kind];
}

/** The error body `wire`'s provider sends with a failed request's status. */
export function errorBody(wire: Wire, kind: ErrorKind, message: string): object {
  return wire === "anthropic-messages" ? anthropicError(kind, message) : openAiError(kind, message);
}

const OPENAI_TYPES: Partial<Record<ErrorKind, [type: string, code: string | null]>> = {
  auth: ["invalid_request_error", "invalid_api_key"],
  rate_limit: ["requests", "rate_limit_exceeded"],
  overloaded: ["server_error", "server_is_overloaded"],
  context_overflow: ["invalid_request_error", "context_length_exceeded"],
  invalid_request: ["invalid_request_error", null],
};

function openAiError(kind: ErrorKind, message: string) {
  const [type, code] = OPENAI_TYPES[kind] ?? ["server_error", null];
  return { error: { message, type, param: null, code } };
}

const ANTHROPIC_TYPES: Partial<Record<ErrorKind, string>> = {
  auth: "authentication_error",
  rate_limit: "rate_limit_error",
  overloaded: "overloaded_error",
  context_overflow: "invalid_request_error",
  invalid_request: "invalid_request_error",
};

function anthropicError(kind: ErrorKind, message: string) {
  return { type: "error", error: { type: ANTHROPIC_TYPES[kind] ?? "api_error", message } };
}
