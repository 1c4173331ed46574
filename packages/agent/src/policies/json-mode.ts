// JSON mode: a model adapter for models without native tool calling. It wraps the stream function
// of loop turns: the model gets the catalog and protocol in its system prompt and the history in
// protocol form (json-prompt.ts), its one JSON object is parsed (json-reply.ts) and the loop
// receives an ordinary assistant message with at most one tool-call part. The loop has one code
// path for both modes. An unparsable reply passes as its raw text; the policy half asks once for a
// reformat (that extra turn counts as an iteration), and if the next reply is unparsable too, its
// raw text is accepted as the answer.
//
// Text is not streamed while the model writes its JSON (it would show raw JSON); reasoning
// ("thinking") deltas are. The parsed message's parts are emitted when the reply is complete.

import {
  type AssistantMessage,
  AssistantMessageBuilder,
  AssistantMessageEventStream,
  type Context,
  type Model,
  type StreamFunction,
  type StreamOptions,
} from "@tern/ai";
import { userMessage } from "../messages.js";
import type { LoopPolicy, PolicyInjection } from "../policy.js";
import { jsonContext } from "./json-prompt.js";
import { readJsonReply } from "./json-reply.js";
import { resolveToolMode, type ToolModeOptions } from "./tool-mode.js";

export interface JsonModeOptions extends ToolModeOptions {
  /** Ask for `responseFormat: json_object` when the model supports it. Default true. */
  jsonResponseFormat?: boolean;
}

export const REFORMAT_REQUEST =
  "Your last reply could not be read: it was not one valid JSON object. Reply again with exactly one JSON object and nothing else, either " +
  '{"type": "tool_call", "reasoning": "...", "tool_name": "...", "tool_args": {...}} or ' +
  '{"type": "final_answer", "reasoning": "...", "answer": "..."}.';

/** The tool-mode policy: JSON mode for models (or settings) without native tool calling. */
export function toolModePolicy(options: JsonModeOptions = {}): LoopPolicy {
  // Replies that were not valid JSON, so the policy can ask for a reformat and the prompt replays them as written.
  const raw = new WeakSet<AssistantMessage>();
  // Random per policy instance: ids stay unique in a session resumed by another process.
  const prefix = `json_${crypto.randomUUID().slice(0, 8)}`;
  let calls = 0;
  return {
    name: "tool_mode",
    wrapStream: (next) => (model, context, streamOptions) =>
      resolveToolMode(model, options) === "native"
        ? next(model, context, streamOptions)
        : jsonTurn(next, model, context, streamOptions, {
            raw,
            options,
            newId: () => `${prefix}_call_${++calls}`,
          }),
    start: (run) => {
      let reformatAsked = false;
      return {
        afterToolBatch: () => {
          reformatAsked = false; // a readable reply ends the streak
        },
        onFinalAnswer: (_run, message): PolicyInjection[] | undefined => {
          if (!raw.has(message)) {
            reformatAsked = false;
            return undefined;
          }
          if (reformatAsked) return undefined; // still unparsable: the raw text is the answer
          reformatAsked = true;
          return [{ kind: "reformat", message: userMessage(REFORMAT_REQUEST, run.now()) }];
        },
      };
    },
  };
}

/** What the policy's turns share (not run plumbing: the run's own parts reach a turn through `next`). */
interface JsonModeState {
  raw: WeakSet<AssistantMessage>;
  options: JsonModeOptions;
  newId: () => string;
}

function jsonTurn(
  next: StreamFunction,
  model: Model,
  context: Context,
  options: StreamOptions,
  state: JsonModeState,
): ReturnType<StreamFunction> {
  const out = new AssistantMessageEventStream();
  const builder = new AssistantMessageBuilder(model, out);
  const { toolChoice: _choice, ...rest } = options;
  const innerOptions: StreamOptions = rest;
  if (state.options.jsonResponseFormat !== false && model.abilities.jsonMode && context.tools?.length) {
    innerOptions.responseFormat = { type: "json_object" };
  }
  const run = async () => {
    const inner = next(model, jsonContext(context, state.raw), innerOptions);
    for await (const event of inner) {
      if (event.type === "thinking_delta") builder.thinking(event.delta);
      else if (event.type === "thinking_end") builder.end();
    }
    const reply = await inner.result();
    finish(builder, reply, state, Boolean(context.tools?.length));
  };
  run().catch((error: unknown) =>
    builder.fail({ kind: "unknown", message: `JSON mode failed: ${(error as Error)?.message ?? error}` }),
  );
  return out;
}

function finish(
  builder: AssistantMessageBuilder,
  reply: AssistantMessage,
  state: JsonModeState,
  hasTools: boolean,
): void {
  const message = builder.message;
  // The streamed reasoning is replaced by the provider's blocks as they ended (signatures are
  // needed to replay them). Every block is closed first, so no index points into the old content.
  builder.end();
  message.content = reply.content.filter((part) => part.type === "thinking");
  builder.setUsage(reply.usage);
  builder.setResponseId(reply.responseId);
  const text = reply.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  if (reply.stopReason === "error" || reply.stopReason === "aborted") {
    builder.text(text);
    builder.fail({
      kind: reply.errorKind ?? (reply.stopReason === "aborted" ? "aborted" : "unknown"),
      message: reply.errorMessage ?? "the model call failed",
    });
    return;
  }
  if (!hasTools) {
    // Nothing to call: the reply is the answer as written.
    builder.text(text);
    builder.finish(reply.stopReason === "length" ? "length" : "stop");
    return;
  }
  const parsed = readJsonReply(text);
  if (parsed.type === "unparsable") {
    state.raw.add(message);
    builder.text(text);
  } else if (parsed.type === "final_answer") {
    builder.text(parsed.answer);
  } else {
    if (parsed.reasoning) builder.text(parsed.reasoning);
    const key = "json_call";
    builder.toolCallStart(key, state.newId(), parsed.toolName);
    builder.toolCallArguments(key, parsed.argsJson);
    builder.end(key);
  }
  // A reply cut at the token limit stays "length": the loop does not run calls that may be cut.
  builder.finish(reply.stopReason === "length" ? "length" : "stop");
}
