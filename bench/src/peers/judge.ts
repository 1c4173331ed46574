// Reads one Chat Completions request against a workload's script: which run and turn it is,
// whether every earlier tool call came back with exactly the result the script's tool gives for
// those arguments, and what the server must answer next. Pure: no I/O, no state.

import { createHash } from "node:crypto";
import { RUN_ID, type Script, type ScriptedCall } from "./script.js";
import { canonical, toolResult } from "./tools.js";

export type Verdict =
  | { kind: "call"; runId: string; turn: number; call: ScriptedCall }
  | { kind: "answer"; runId: string; turn: number; digest: string }
  /** A forced structured call (tool selection): answer it with these arguments for `tool`. */
  | { kind: "structured"; tool: string; args: Record<string, unknown> }
  | { kind: "reject"; message: string };

interface WireMessage {
  role?: string;
  content?: unknown;
  tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[];
  tool_call_id?: string;
}

interface WireBody {
  messages?: WireMessage[];
  tools?: { function?: { name?: string; parameters?: Record<string, unknown> } }[];
  tool_choice?: unknown;
}

/** Text of a message's content, string or parts. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}

/** tern's tool for loading tools its selection hid: the server calls it before a hidden tool. */
export const LOAD_TOOL = "request_tools";

export function judge(script: Script, body: WireBody): Verdict {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const forced = forcedTool(body);
  if (forced) return structured(script, body, forced);

  const user = messages.find((m) => m.role === "user");
  const runId = contentText(user?.content).match(RUN_ID)?.[0];
  if (!runId) return { kind: "reject", message: "no run id in the first user message" };

  const calls: { id: string; name: string; args: string }[] = [];
  const loads: string[] = [];
  const results = new Map<string, string>();
  for (const message of messages) {
    if (message.role === "assistant")
      for (const call of message.tool_calls ?? [])
        if (call.function?.name === LOAD_TOOL) loads.push(call.id ?? "");
        else
          calls.push({
            id: call.id ?? "",
            name: call.function?.name ?? "",
            args: call.function?.arguments ?? "",
          });
    if (message.role === "tool") results.set(message.tool_call_id ?? "", contentText(message.content));
  }
  const expected = script.calls(runId);
  if (calls.length > expected.length)
    return reject(runId, `${calls.length} tool calls, script has ${expected.length}`);
  if (results.size !== calls.length + loads.length)
    return reject(runId, `${calls.length + loads.length} tool calls but ${results.size} results`);
  for (const id of loads) if (!results.has(id)) return reject(runId, `no result for ${LOAD_TOOL} call ${id}`);

  const transcript: string[] = [];
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!;
    const want = expected[i]!;
    let args: Record<string, unknown>;
    try {
      args = JSON.parse(call.args || "{}");
    } catch {
      return reject(runId, `turn ${i + 1}: arguments are not JSON: ${call.args.slice(0, 60)}`);
    }
    if (call.name !== want.name || canonical(args) !== canonical(want.args))
      return reject(runId, `turn ${i + 1}: sent back ${call.name}(${call.args.slice(0, 60)})`);
    const result = results.get(call.id);
    if (result === undefined) return reject(runId, `turn ${i + 1}: no result for call ${call.id}`);
    if (result !== toolResult(want.name, want.args))
      return reject(runId, `turn ${i + 1}: wrong tool result ${JSON.stringify(result.slice(0, 60))}`);
    transcript.push(canonical([want.name, want.args, result]));
  }
  const turn = calls.length + loads.length + 1;
  if (calls.length < expected.length) {
    const next = expected[calls.length]!;
    // A selection that missed the next tool: a runtime that can load tools is asked to first.
    const offered = new Set((body.tools ?? []).map((t) => t.function?.name));
    if (!offered.has(next.name) && offered.has(LOAD_TOOL))
      return { kind: "call", runId, turn, call: { name: LOAD_TOOL, args: { names: [next.name] } } };
    return { kind: "call", runId, turn, call: next };
  }
  const digest = createHash("sha1").update(transcript.join("\n")).digest("hex").slice(0, 12);
  return { kind: "answer", runId, turn, digest };
}

const reject = (runId: string, message: string): Verdict => ({
  kind: "reject",
  message: `${runId} ${message}`,
});

function forcedTool(body: WireBody): string | undefined {
  const choice = body.tool_choice as { type?: string; function?: { name?: string } } | undefined;
  return choice && typeof choice === "object" && choice.type === "function"
    ? choice.function?.name
    : undefined;
}

/**
 * A forced call to a tool that is not one of the script's: a structured call such as tool
 * selection. The arguments fill the schema's first array-of-strings property with the script's
 * selection, and every other required property with an empty value of its type.
 */
function structured(script: Script, body: WireBody, name: string): Verdict {
  const tool = body.tools?.find((t) => t.function?.name === name);
  const schema = (tool?.function?.parameters ?? {}) as {
    properties?: Record<string, { type?: string }>;
    required?: string[];
  };
  if (!script.selection) return { kind: "reject", message: `unexpected structured call ${name}` };
  const args: Record<string, unknown> = {};
  let filled = false;
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (property.type === "array" && !filled) {
      args[key] = script.selection;
      filled = true;
    } else if (schema.required?.includes(key)) args[key] = emptyOf(property.type);
  }
  if (!filled) return { kind: "reject", message: `structured call ${name} has no array property` };
  return { kind: "structured", tool: name, args };
}

function emptyOf(type: string | undefined): unknown {
  switch (type) {
    case "string":
      return "";
    case "number":
    case "integer":
      return 0;
    case "boolean":
      return false;
    case "array":
      return [];
    default:
      return {};
  }
}
