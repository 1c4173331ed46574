// The four wire formats the CLIs speak, as the scripted server writes them: the tools a request
// offers (name and JSON Schema) and the streamed frames of one tool call or one text answer.
// Frame shapes follow the captured provider streams in shared/fixtures/provider-streams/ (see
// its NOTICE): Chat Completions chunks, Responses events, Anthropic Messages events; Gemini's
// streamGenerateContent is `data: GenerateContentResponse` lines. Chat Completions chunks come
// from the peer workloads' writer (peers/wire.ts).

import { ChunkWriter, DONE, pieces } from "../peers/wire.js";

export type Wire = "chat" | "responses" | "anthropic" | "gemini";

export interface OfferedTool {
  name: string;
  schema: { properties?: Record<string, { type?: string | string[] }>; required?: string[] };
}

type Json = Record<string, unknown>;

export function offeredTools(wire: Wire, body: Json): OfferedTool[] {
  const tools = (body.tools ?? []) as Json[];
  switch (wire) {
    case "chat":
      return tools
        .map((t) => t.function as Json)
        .map((f) => ({ name: String(f?.name), schema: (f?.parameters ?? {}) as OfferedTool["schema"] }));
    case "responses":
      return tools
        .filter((t) => t.type === "function")
        .map((t) => ({ name: String(t.name), schema: (t.parameters ?? {}) as OfferedTool["schema"] }));
    case "anthropic":
      return tools.map((t) => ({
        name: String(t.name),
        schema: (t.input_schema ?? {}) as OfferedTool["schema"],
      }));
    case "gemini":
      return tools
        .flatMap((t) => (t.functionDeclarations ?? []) as Json[])
        .map((f) => ({
          name: String(f.name),
          schema: (f.parametersJsonSchema ?? f.parameters ?? {}) as OfferedTool["schema"],
        }));
  }
}

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;

const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };

/** The frames of one streamed reply: a tool call (name + arguments) or a text answer. */
export function replyFrames(
  wire: Wire,
  reply: { call: { name: string; args: Json; id: string } } | { text: string; chunk: number },
  model: string,
): string[] {
  const id = `bench_${Math.random().toString(36).slice(2, 10)}`;
  const created = Math.floor(Date.now() / 1000);
  switch (wire) {
    case "chat": {
      const out = new ChunkWriter(id, model);
      const frames =
        "call" in reply
          ? [
              out.toolCallStart(reply.call.id, reply.call.name),
              ...pieces(JSON.stringify(reply.call.args), 24).map((piece) => out.toolCallArgs(piece)),
              out.finish("tool_calls"),
            ]
          : [
              out.role(),
              ...pieces(reply.text, reply.chunk).map((piece) => out.text(piece)),
              out.finish("stop"),
            ];
      return [...frames, out.usage(usage), DONE];
    }
    case "responses": {
      let seq = 0;
      const ev = (data: Json) => sse({ ...data, sequence_number: seq++ }, String(data.type));
      const response = (status: string, output: Json[]) => ({
        id: `resp_${id}`,
        object: "response",
        created_at: created,
        status,
        model,
        output,
        usage:
          status === "completed"
            ? {
                input_tokens: 100,
                input_tokens_details: { cached_tokens: 0 },
                output_tokens: 20,
                output_tokens_details: { reasoning_tokens: 0 },
                total_tokens: 120,
              }
            : null,
      });
      const frames = [ev({ type: "response.created", response: response("in_progress", []) })];
      let item: Json;
      if ("call" in reply) {
        const args = JSON.stringify(reply.call.args);
        item = {
          id: `fc_${id}`,
          type: "function_call",
          status: "completed",
          arguments: args,
          call_id: reply.call.id,
          name: reply.call.name,
        };
        frames.push(
          ev({
            type: "response.output_item.added",
            output_index: 0,
            item: { ...item, status: "in_progress", arguments: "" },
          }),
          ...pieces(args, 24).map((delta) =>
            ev({ type: "response.function_call_arguments.delta", item_id: item.id, output_index: 0, delta }),
          ),
          ev({
            type: "response.function_call_arguments.done",
            item_id: item.id,
            output_index: 0,
            arguments: args,
          }),
        );
      } else {
        const content = [{ type: "output_text", text: reply.text, annotations: [] }];
        item = { id: `msg_${id}`, type: "message", status: "completed", role: "assistant", content };
        frames.push(
          ev({
            type: "response.output_item.added",
            output_index: 0,
            item: { ...item, status: "in_progress", content: [] },
          }),
          ev({
            type: "response.content_part.added",
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            part: { type: "output_text", text: "", annotations: [] },
          }),
          ...pieces(reply.text, reply.chunk).map((delta) =>
            ev({
              type: "response.output_text.delta",
              item_id: item.id,
              output_index: 0,
              content_index: 0,
              delta,
            }),
          ),
          ev({
            type: "response.output_text.done",
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            text: reply.text,
          }),
          ev({
            type: "response.content_part.done",
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            part: content[0],
          }),
        );
      }
      frames.push(
        ev({ type: "response.output_item.done", output_index: 0, item }),
        ev({ type: "response.completed", response: response("completed", [item]) }),
      );
      return frames;
    }
    case "anthropic": {
      const ev = (data: Json) => sse(data, String(data.type));
      const frames = [
        ev({
          type: "message_start",
          message: {
            model,
            id: `msg_${id}`,
            type: "message",
            role: "assistant",
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 100, output_tokens: 1 },
          },
        }),
      ];
      if ("call" in reply) {
        frames.push(
          ev({
            type: "content_block_start",
            index: 0,
            content_block: { type: "tool_use", id: reply.call.id, name: reply.call.name, input: {} },
          }),
          ...pieces(JSON.stringify(reply.call.args), 24).map((partial_json) =>
            ev({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json } }),
          ),
        );
      } else {
        frames.push(
          ev({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
          ...pieces(reply.text, reply.chunk).map((text) =>
            ev({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }),
          ),
        );
      }
      frames.push(
        ev({ type: "content_block_stop", index: 0 }),
        ev({
          type: "message_delta",
          delta: { stop_reason: "call" in reply ? "tool_use" : "end_turn", stop_sequence: null },
          usage: { output_tokens: 20 },
        }),
        ev({ type: "message_stop" }),
      );
      return frames;
    }
    case "gemini": {
      const frame = (parts: Json[], finishReason?: string) =>
        sse({
          candidates: [
            { content: { parts, role: "model" }, index: 0, ...(finishReason && { finishReason }) },
          ],
          usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
          modelVersion: model,
          responseId: id,
        });
      if ("call" in reply)
        return [frame([{ functionCall: { name: reply.call.name, args: reply.call.args } }], "STOP")];
      const texts = pieces(reply.text, reply.chunk);
      return texts.map((text, i) => frame([{ text }], i === texts.length - 1 ? "STOP" : undefined));
    }
  }
}
