// structuredCall: a value that fits a JSON Schema, from any model, by a degradation chain:
//   1. tool_call  (model.abilities.toolCall): one forced tool whose parameters are the schema
//   2. json_mode  (model.abilities.jsonMode): responseFormat json_object + schema in the system
//                 prompt; one reformat retry naming the validation error
//   3. text       (always): schema in the system prompt, extractJson on the answer, then the
//                 optional regexFallback; one reformat retry
//   4. default    options.defaultValue, else a StructuredOutputError
// A provider error moves on to the next level, except auth and context-overflow errors, which no
// other level can fix (the chain goes straight to step 4; `errorKind` tells the caller to compact).
// Abort stops at once with a StructuredOutputError whose reason is "aborted" — even with a
// defaultValue, so a cancelled call never looks like an answer.
//
// Why reject instead of resolving a failure shape: the seam rule is for stream(), whose callers
// consume events; here the caller wants a value of type T, and there is none to give. The
// rejection is one typed class carrying the same data a failure object would (attempts, usage,
// failures); pass a defaultValue to make every non-abort outcome a resolved value.

import { extractJsonCandidates } from "./extract-json.js";
import { schemaValidator } from "./json-schema-validator.js";
import { complete } from "./stream.js";
import type {
  AssistantMessage,
  Context,
  ErrorKind,
  JsonSchema,
  Model,
  StreamFunction,
  StreamOptions,
  ToolCall,
  ToolSpec,
  Usage,
} from "./types.js";
import { addUsage } from "./usage.js";

export type StructuredLevel = "tool_call" | "json_mode" | "text" | "default";
export type StructuredCallLevel = Exclude<StructuredLevel, "default">;

export interface StructuredAttemptInfo {
  level: StructuredCallLevel;
  /** 1 for the first model call of this structuredCall, counting every level. */
  attempt: number;
  /** This call is its level's one reformat retry. */
  reformat: boolean;
}

export interface StructuredAttempt extends StructuredAttemptInfo {
  message: AssistantMessage;
  durationMs: number;
}

export interface StructuredCallOptions<T = unknown>
  extends Omit<StreamOptions, "toolChoice" | "responseFormat"> {
  schema: JsonSchema;
  /** Tool name at level 1 (sanitised to [A-Za-z0-9_-]); also named in the JSON instructions. Default "respond". */
  name?: string;
  description?: string;
  /** Returned with level "default" when every level failed (not on abort). */
  defaultValue?: T;
  /**
   * Tried at the text level when no JSON in the answer validates. A function returns a candidate
   * (undefined for none). A RegExp's named groups become an object, else its first group (or the
   * whole match) is the value; each captured string becomes the JSON it spells (`36` -> 36,
   * `true` -> true) or stays a string. The candidate must still validate.
   */
  regexFallback?: RegExp | ((text: string) => unknown);
  /** Before each model call (for `model_call_start`). Exceptions from hooks are ignored. */
  onCallStart?: (info: StructuredAttemptInfo) => void;
  /** After each model call, failed ones included (for `model_call_end` with purpose and usage). */
  onCall?: (attempt: StructuredAttempt) => void;
  /** The model seam to call through (an agent's own, or an adapter). Default: `stream` from @tern/ai. */
  streamFn?: StreamFunction;
}

export interface StructuredResult<T> {
  value: T;
  /**
   * What the model produced, before validation: the tool call's arguments (with the `{value}`
   * wrapper when the schema is not an object), or the parsed JSON / regex candidate. At level
   * "default" it is the last candidate that failed validation, or undefined if none parsed.
   */
  raw: unknown;
  level: StructuredLevel;
  /** Summed over every model call, failed ones included. */
  usage: Usage;
  /** Model calls made. */
  attempts: number;
}

export interface StructuredFailure {
  level: StructuredCallLevel;
  message: string;
  /** Set when the failure was the provider's (stopReason "error"). */
  errorKind?: ErrorKind;
}

export type StructuredErrorReason = "failed" | "aborted" | "invalid_schema";

export class StructuredOutputError extends Error {
  override readonly name = "StructuredOutputError";
  constructor(
    message: string,
    readonly reason: StructuredErrorReason,
    readonly attempts: number,
    readonly usage: Usage,
    /** Why the last level failed (validation error text, provider error, ...). */
    readonly lastError: string,
    /** The model's last answer text (a tool call's arguments as JSON), if any. */
    readonly lastText: string | undefined,
    /** Every level's failure, in order. */
    readonly failures: StructuredFailure[],
    /** The last provider error's kind, e.g. "context_overflow" to compact and retry. */
    readonly errorKind?: ErrorKind,
  ) {
    super(message);
  }
}

type Outcome =
  | { ok: true; value: unknown; raw: unknown }
  | { ok: false; error: string; errorKind?: ErrorKind };
type Spec = Pick<StructuredCallOptions, "schema" | "name" | "description" | "regexFallback">;

const MAX_CANDIDATES = 10;

/** Gets a value matching `options.schema` from `model`. Rejects only with StructuredOutputError. */
export async function structuredCall<T = unknown>(
  model: Model,
  input: Context | string,
  options: StructuredCallOptions<T>,
): Promise<StructuredResult<T>> {
  const { schema, name, description, defaultValue, regexFallback, onCall, onCallStart, streamFn, ...rest } =
    options;
  // Each level sets these itself; drop any that slipped past the type (plain JS callers).
  const { toolChoice: _choice, responseFormat: _format, ...streamOptions } = rest as StreamOptions;
  const run = new Run(model, streamOptions, onCallStart, onCall, streamFn);
  const spec: Spec = { schema, name, description, regexFallback };
  try {
    const compiled = schemaValidator(schema);
    if (!compiled.ok) throw run.error("invalid_schema", compiled.error);
    const context = typeof input === "string" ? promptContext(input) : input;
    const levels: StructuredCallLevel[] = [
      ...(model.abilities.toolCall ? (["tool_call"] as const) : []),
      ...(model.abilities.jsonMode ? (["json_mode"] as const) : []),
      "text",
    ];
    for (const level of levels) {
      const outcome =
        level === "tool_call" ? await viaTool(run, context, spec) : await viaJson(run, context, spec, level);
      if (outcome.ok) return run.result(outcome.value as T, outcome.raw, level);
      run.failures.push({
        level,
        message: outcome.error,
        ...(outcome.errorKind && { errorKind: outcome.errorKind }),
      });
      if (outcome.errorKind === "auth" || outcome.errorKind === "context_overflow") break;
    }
    if (defaultValue !== undefined) return run.result(defaultValue, run.lastCandidate, "default");
    const summary = run.failures.map((f) => `${f.level}: ${f.message}`).join("; ");
    throw run.error("failed", `structuredCall found no valid value (${summary})`);
  } catch (error) {
    if (error instanceof StructuredOutputError) throw error;
    throw run.error("failed", `structuredCall failed unexpectedly: ${(error as Error)?.message ?? error}`);
  }
}

/** Bookkeeping shared by the levels: calls, usage, the last answer. */
class Run {
  attempts = 0;
  usages: Usage[] = [];
  failures: StructuredFailure[] = [];
  lastText: string | undefined;
  lastCandidate: unknown;

  constructor(
    readonly model: Model,
    readonly streamOptions: Omit<StreamOptions, "toolChoice" | "responseFormat">,
    private readonly onCallStart: StructuredCallOptions["onCallStart"],
    private readonly onCall: StructuredCallOptions["onCall"],
    private readonly streamFn: StreamFunction | undefined,
  ) {}

  async call(
    level: StructuredCallLevel,
    context: Context,
    options: StreamOptions,
    reformat: boolean,
  ): Promise<AssistantMessage> {
    if (this.streamOptions.signal?.aborted) throw this.error("aborted", "structuredCall was aborted");
    const info = { level, attempt: ++this.attempts, reformat };
    quietly(() => this.onCallStart?.(info));
    const started = Date.now();
    const message = this.streamFn
      ? await this.streamFn(this.model, context, options).result()
      : await complete(this.model, context, options);
    this.usages.push(message.usage);
    quietly(() => this.onCall?.({ ...info, message, durationMs: Date.now() - started }));
    this.lastText = answerText(message);
    if (message.stopReason === "aborted" || this.streamOptions.signal?.aborted)
      throw this.error("aborted", `structuredCall was aborted: ${message.errorMessage ?? "signal aborted"}`);
    return message;
  }

  /** Validates `value`; `raw` is what the model produced (it differs only for wrapped tool args). */
  check(schema: JsonSchema, value: unknown, raw: unknown = value): Outcome {
    const compiled = schemaValidator(schema);
    const verdict = compiled.ok ? compiled.validate(value) : compiled;
    if (verdict.ok) return { ok: true, value, raw };
    this.lastCandidate = raw;
    return { ok: false, error: `the value does not match the schema: ${verdict.error}` };
  }

  result<T>(value: T, raw: unknown, level: StructuredLevel): StructuredResult<T> {
    return { value, raw, level, usage: addUsage(...this.usages), attempts: this.attempts };
  }

  error(reason: StructuredErrorReason, message: string): StructuredOutputError {
    const lastError = reason === "failed" ? (this.failures.at(-1)?.message ?? message) : message;
    const errorKind = this.failures.findLast((f) => f.errorKind)?.errorKind;
    return new StructuredOutputError(
      message,
      reason,
      this.attempts,
      addUsage(...this.usages),
      lastError,
      this.lastText,
      [...this.failures],
      errorKind,
    );
  }
}

async function viaTool(run: Run, context: Context, spec: Spec): Promise<Outcome> {
  const { tool, wrapped } = toolFor(spec);
  const tools = [...(context.tools ?? []).filter((t) => t.name !== tool.name), tool];
  const options = { ...run.streamOptions, toolChoice: { name: tool.name } };
  const message = await run.call("tool_call", { ...context, tools }, options, false);
  if (message.stopReason === "error") return providerFailure(message);
  const calls = message.content.filter((part): part is ToolCall => part.type === "toolCall");
  const call = calls.find((c) => c.name === tool.name) ?? calls[0];
  if (!call) return { ok: false, error: "the model answered without calling the tool" };
  if (call.parseError)
    return { ok: false, error: `the tool arguments were not valid JSON (${call.parseError})` };
  if (wrapped && !("value" in call.arguments))
    return { ok: false, error: 'the tool arguments have no "value" property' };
  return run.check(spec.schema, wrapped ? call.arguments.value : call.arguments, call.arguments);
}

async function viaJson(
  run: Run,
  context: Context,
  spec: Spec,
  level: "json_mode" | "text",
): Promise<Outcome> {
  const base = {
    ...context,
    systemPrompt: [context.systemPrompt, instruction(spec, level)].filter(Boolean).join("\n\n"),
  };
  const options: StreamOptions = {
    ...run.streamOptions,
    // Keep the caller's tools (history may reference them) but do not let the model call them.
    ...(context.tools?.length && { toolChoice: "none" as const }),
    ...(level === "json_mode" && { responseFormat: { type: "json_object" as const } }),
  };
  let messages = context.messages;
  for (const reformat of [false, true]) {
    const message = await run.call(level, { ...base, messages }, options, reformat);
    if (message.stopReason === "error") return providerFailure(message);
    const text = textOf(message);
    const outcome = readAnswer(run, spec, text, level === "text" ? spec.regexFallback : undefined);
    if (outcome.ok || reformat) return outcome;
    const answer: AssistantMessage = {
      ...message,
      content: [{ type: "text", text: text || "(empty answer)" }],
    };
    messages = [...messages, answer, reformatRequest(outcome.error)];
  }
  return { ok: false, error: "unreachable" };
}

/** The first JSON candidate in the text that validates, else the regex fallback's candidate. */
function readAnswer(run: Run, spec: Spec, text: string, fallback: Spec["regexFallback"]): Outcome {
  let firstFailure: Outcome | undefined;
  let firstRaw: unknown;
  let seen = 0;
  for (const candidate of extractJsonCandidates(text)) {
    const outcome = run.check(spec.schema, candidate);
    if (outcome.ok) return outcome;
    if (!firstFailure) [firstFailure, firstRaw] = [outcome, candidate];
    if (++seen >= MAX_CANDIDATES) break;
  }
  const candidate = fallback ? fromFallback(fallback, text) : undefined;
  if (candidate !== undefined) {
    const outcome = run.check(spec.schema, candidate);
    if (outcome.ok) return outcome;
    if (!firstFailure) [firstFailure, firstRaw] = [outcome, candidate];
  }
  if (firstFailure) {
    run.lastCandidate = firstRaw;
    return firstFailure;
  }
  return { ok: false, error: text.trim() ? "no JSON value was found in the answer" : "the answer was empty" };
}

function fromFallback(fallback: NonNullable<Spec["regexFallback"]>, text: string): unknown {
  if (typeof fallback === "function") {
    try {
      return fallback(text);
    } catch {
      return undefined;
    }
  }
  // A copy without g/y: exec on those is stateful (lastIndex) and would skip matches.
  const match = new RegExp(fallback.source, fallback.flags.replace(/[gy]/g, "")).exec(text);
  if (!match) return undefined;
  if (match.groups) {
    const entries = Object.entries(match.groups).filter(([, v]) => v !== undefined);
    return Object.fromEntries(entries.map(([k, v]) => [k, spelled(v as string)]));
  }
  return spelled(match[1] ?? match[0]);
}

function spelled(text: string): unknown {
  try {
    return JSON.parse(text.trim());
  } catch {
    return text;
  }
}

function toolFor(spec: Spec): { tool: ToolSpec; wrapped: boolean } {
  const name = (spec.name ?? "respond").replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "respond";
  const description =
    spec.description ?? "Give your answer by calling this tool: its arguments are the answer.";
  const { schema } = spec;
  const isObject =
    schema.type === "object" || (schema.type === undefined && typeof schema.properties === "object");
  if (isObject) return { tool: { name, description, parameters: schema }, wrapped: false };
  // Tool parameters must be an object: wrap other schemas as {value}, keeping shared definitions at the root.
  const { $defs, definitions, $schema: _dialect, ...inner } = schema;
  const parameters: JsonSchema = {
    type: "object",
    properties: { value: inner },
    required: ["value"],
    ...($defs !== undefined && { $defs }),
    ...(definitions !== undefined && { definitions }),
  };
  return { tool: { name, description, parameters }, wrapped: true };
}

function instruction(spec: Spec, level: "json_mode" | "text"): string {
  const about = [spec.name, spec.description].filter(Boolean).join(": ");
  return [
    `Answer with one JSON value${about ? ` (${about})` : ""} that matches this JSON Schema:`,
    JSON.stringify(spec.schema),
    level === "json_mode"
      ? "Reply with only the JSON, no other text."
      : "Reply with only the JSON inside a ```json code block, no other text.",
  ].join("\n");
}

function reformatRequest(error: string): Context["messages"][number] {
  return {
    role: "user",
    content: `Your answer could not be used: ${error}. Reply again with only the JSON value that matches the schema, nothing else.`,
    timestamp: Date.now(),
  };
}

function providerFailure(message: AssistantMessage): Outcome {
  const kind = message.errorKind ?? "unknown";
  return {
    ok: false,
    error: `provider error (${kind}): ${message.errorMessage ?? "no message"}`,
    errorKind: kind,
  };
}

function promptContext(prompt: string): Context {
  return { messages: [{ role: "user", content: prompt, timestamp: Date.now() }] };
}

function textOf(message: AssistantMessage): string {
  return message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

/** The answer's text; for a tool-call-only answer, its arguments as JSON (for error reports). */
function answerText(message: AssistantMessage): string {
  const text = textOf(message);
  if (text) return text;
  const call = message.content.find((p): p is ToolCall => p.type === "toolCall");
  return call ? JSON.stringify(call.arguments) : "";
}

function quietly(hook: () => void): void {
  try {
    hook();
  } catch {
    // A logging hook must not break the call it observes.
  }
}
