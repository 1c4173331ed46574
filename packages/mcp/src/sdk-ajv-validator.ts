// The MCP SDK's JSON Schema validator, built at its first schema. The SDK imports Ajv and
// ajv-formats when it loads and builds an Ajv in every Client and Server constructor, which put
// ~20 ms of CPU before `tern mcp serve` could answer `initialize` — and a server validates only
// what it elicits, which tern's never does. The CLI's build points the SDK's own
// `validation/ajv-provider.js` at this module (packages/cli/scripts/build.mjs): the same class
// name, options, formats and answers, with Ajv required from the bundle's one Ajv file (ajv.cjs,
// via @tern/ai's loadAjv) on first use. Outside the bundle the SDK keeps its own provider.
import { createRequire } from "node:module";
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation/types.js";
import { type AjvClasses, loadAjv } from "@tern/ai";

type Ajv = InstanceType<AjvClasses["Ajv"]>;
type FormatsPlugin = (ajv: Ajv) => Ajv;

/** The SDK's defaults: lenient about unknown keywords, strict about formats, every error reported. */
function defaultAjv(): Ajv {
  const ajv = new (loadAjv().Ajv)({
    strict: false,
    validateFormats: true,
    validateSchema: false,
    allErrors: true,
  });
  // Spelled as one call for the build, which turns it into a require of the vendored file.
  const formats = createRequire(import.meta.url)("ajv-formats") as { default: FormatsPlugin };
  formats.default(ajv);
  return ajv;
}

export class AjvJsonSchemaValidator implements jsonSchemaValidator {
  #ajv: Ajv | undefined;

  constructor(ajv?: Ajv) {
    this.#ajv = ajv;
  }

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    this.#ajv ??= defaultAjv();
    const ajv = this.#ajv;
    const id = (schema as { $id?: unknown }).$id;
    const validate = (typeof id === "string" ? ajv.getSchema(id) : undefined) ?? ajv.compile(schema);
    return (input) =>
      validate(input)
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: ajv.errorsText(validate.errors) };
  }
}
