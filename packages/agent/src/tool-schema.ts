import { type JsonSchema, loadAjv, type ToolSpec } from "@tern/ai";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { type ZodType, z } from "zod";
import type { AnyAgentTool } from "./types.js";

// Schemas are compiled once per tool and tool list: a long run must not re-derive them every turn.
const specs = new WeakMap<AnyAgentTool, ToolSpec>();
const lists = new WeakMap<readonly AnyAgentTool[], { tools: AnyAgentTool[]; specs: ToolSpec[] }>();
const validators = new WeakMap<JsonSchema, ValidateFunction | Error>();
let ajv: Ajv | undefined;

export type Validation = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

export function isZodSchema(value: unknown): value is ZodType {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/** The model-facing specs of `tools`, cached by list (re-derived if the list was changed in place). */
export function toolSpecs(tools: readonly AnyAgentTool[]): ToolSpec[] {
  const cached = lists.get(tools);
  if (cached && sameTools(cached.tools, tools)) return cached.specs;
  const entry = { tools: [...tools], specs: tools.map(toolSpec) };
  lists.set(tools, entry);
  return entry.specs;
}

export function toolSpec(tool: AnyAgentTool): ToolSpec {
  let spec = specs.get(tool);
  if (!spec) {
    const parameters = isZodSchema(tool.parameters)
      ? zodToJsonSchema(tool.parameters)
      : (tool.parameters as JsonSchema);
    spec = { name: tool.name, description: tool.description, parameters };
    specs.set(tool, spec);
  }
  return spec;
}

/** Validates model arguments; the error text is written for the model to read and fix its call. */
export async function validateArguments(
  tool: AnyAgentTool,
  args: Record<string, unknown>,
): Promise<Validation> {
  if (isZodSchema(tool.parameters)) {
    const parsed = await tool.parameters.safeParseAsync(args);
    if (parsed.success) return { ok: true, value: parsed.data as Record<string, unknown> };
    const lines = parsed.error.issues.map((issue) => `- ${pathText(issue.path)}: ${issue.message}`);
    return { ok: false, error: invalid(tool.name, lines) };
  }
  const validate = validatorFor(tool.parameters as JsonSchema);
  if (validate instanceof Error) {
    return {
      ok: false,
      error: `The parameter schema of tool "${tool.name}" is invalid: ${validate.message}`,
    };
  }
  // ajv fills defaults in place; the model's arguments stay as it sent them.
  const value = structuredClone(args);
  if (validate(value)) return { ok: true, value };
  const lines = (validate.errors ?? []).map(ajvErrorLine);
  return { ok: false, error: invalid(tool.name, lines) };
}

function zodToJsonSchema(schema: ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  return rest as JsonSchema;
}

function validatorFor(schema: JsonSchema): ValidateFunction | Error {
  let validate = validators.get(schema);
  if (!validate) {
    ajv ??= new (loadAjv().Ajv)({ allErrors: true, strict: false, useDefaults: true });
    try {
      const { $schema: _dialect, ...rest } = schema;
      validate = ajv.compile(rest);
    } catch (error) {
      validate = error instanceof Error ? error : new Error(String(error));
    }
    validators.set(schema, validate);
  }
  return validate;
}

function ajvErrorLine(error: ErrorObject): string {
  const path = error.instancePath === "" ? [] : error.instancePath.slice(1).split("/");
  let message = error.message ?? "is invalid";
  if (error.keyword === "additionalProperties") {
    message = `unexpected property "${(error.params as { additionalProperty: string }).additionalProperty}"`;
  } else if (error.keyword === "enum") {
    message = `${message}: ${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)}`;
  }
  return `- ${pathText(path)}: ${message}`;
}

function pathText(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "(root)" : path.map(String).join(".");
}

function invalid(toolName: string, lines: string[]): string {
  return `Invalid arguments for tool "${toolName}":\n${lines.join("\n")}\nFix the arguments and call the tool again.`;
}

function sameTools(a: readonly AnyAgentTool[], b: readonly AnyAgentTool[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
