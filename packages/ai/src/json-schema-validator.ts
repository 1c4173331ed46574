import type { Ajv, ErrorObject, Options, ValidateFunction } from "ajv";
import type { Ajv2019 } from "ajv/dist/2019.js";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { loadAjv } from "./ajv-loader.js";
import type { JsonSchema } from "./types.js";

export type Validation = { ok: true } | { ok: false; error: string };

/** A compiled schema, or why it could not be compiled. */
export type SchemaValidator =
  | { ok: true; validate: (data: unknown) => Validation }
  | { ok: false; error: string };

// Lenient on purpose: schemas come from users, zod and providers' docs, with vendor keywords and
// formats we do not check. allErrors lets one reformat request name every problem at once.
// addUsedSchema off: two schemas with the same $id must not collide in the shared instance.
const options: Options = { strict: false, allErrors: true, validateFormats: false, addUsedSchema: false };
/** One Ajv instance per JSON Schema dialect, each made when a schema of its dialect first comes. */
const instances: { draft7?: Ajv; draft2019?: Ajv2019; draft2020?: Ajv2020 } = {};

function ajvFor(schema: JsonSchema): Ajv | Ajv2019 | Ajv2020 {
  const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
  if (dialect.includes("2020-12")) {
    instances.draft2020 ??= new (loadAjv().Ajv2020)(options);
    return instances.draft2020;
  }
  if (dialect.includes("2019-09")) {
    instances.draft2019 ??= new (loadAjv().Ajv2019)(options);
    return instances.draft2019;
  }
  instances.draft7 ??= new (loadAjv().Ajv)(options);
  return instances.draft7;
}

const cache = new WeakMap<JsonSchema, SchemaValidator>();

/** Compiles `schema` once (cached by object identity). Never throws. */
export function schemaValidator(schema: JsonSchema): SchemaValidator {
  const cached = cache.get(schema);
  if (cached) return cached;
  let compiled: SchemaValidator;
  try {
    // The dialect is chosen above; dropping $schema spares Ajv a meta-schema lookup it may not
    // have (draft-04 and unknown dialects then validate as draft-07).
    const { $schema: _dialect, ...body } = schema;
    const validate: ValidateFunction = ajvFor(schema).compile(body);
    compiled = {
      ok: true,
      validate: (data) =>
        validate(data) ? { ok: true } : { ok: false, error: describeErrors(validate.errors) },
    };
  } catch (error) {
    compiled = { ok: false, error: `invalid JSON Schema: ${(error as Error)?.message ?? String(error)}` };
  }
  cache.set(schema, compiled);
  return compiled;
}

/** Validates `data` against `schema`; an uncompilable schema is reported as a failed validation. */
export function validateJson(schema: JsonSchema, data: unknown): Validation {
  const validator = schemaValidator(schema);
  return validator.ok ? validator.validate(data) : validator;
}

const MAX_LISTED = 5;

/** "/age must be integer; (root) must have required property 'name'" — short enough for a prompt. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors?.length) return "does not match the schema";
  const lines = errors
    .slice(0, MAX_LISTED)
    .map((e) => `${e.instancePath || "(root)"} ${e.message ?? "is invalid"}${detail(e)}`);
  if (errors.length > MAX_LISTED) lines.push(`and ${errors.length - MAX_LISTED} more`);
  return lines.join("; ");
}

function detail(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "additionalProperties") return ` ('${String(params.additionalProperty)}')`;
  if (error.keyword === "enum" && Array.isArray(params.allowedValues))
    return `: ${params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
  return "";
}
