// The bundle's stand-in for the MCP SDK's validator must answer as the SDK's own does (same
// options, formats included). That the bundle loads no Ajv for `mcp serve` is checked on the
// build itself (packages/cli/test/startup.test.ts).
import { AjvJsonSchemaValidator as SdkValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import type { JsonSchemaType } from "@modelcontextprotocol/sdk/validation/types.js";
import { describe, expect, it } from "vitest";
import { AjvJsonSchemaValidator } from "../src/sdk-ajv-validator.js";

const SCHEMAS: { schema: JsonSchemaType; inputs: unknown[] }[] = [
  {
    schema: {
      type: "object",
      properties: {
        email: { type: "string", format: "email" },
        when: { type: "string", format: "date-time" },
      },
      required: ["email"],
    },
    inputs: [
      { email: "a@b.example" },
      { email: "not an email" },
      { email: "a@b.example", when: "2026-12-03T10:00:00Z" },
      { email: "a@b.example", when: "yesterday" },
      {},
      "a string",
    ],
  },
  {
    schema: {
      $id: "urn:tern:test:count",
      type: "integer",
      minimum: 1,
      "x-unknown-keyword": true,
    } as JsonSchemaType,
    inputs: [1, 0, 2.5, "3"],
  },
];

describe("the bundle's MCP SDK validator", () => {
  it("gives the SDK validator's answers and messages, formats and $id included", () => {
    const ours = new AjvJsonSchemaValidator();
    const sdk = new SdkValidator();
    for (const { schema, inputs } of SCHEMAS) {
      for (let round = 0; round < 2; round++) {
        // Twice: the second getValidator of an $id schema reuses the compiled one.
        const mine = ours.getValidator(schema);
        const theirs = sdk.getValidator(schema);
        for (const input of inputs)
          expect({ input, result: mine(input) }).toEqual({ input, result: theirs(input) });
      }
    }
    expect(ours.getValidator(SCHEMAS[0]!.schema)({ email: "x" })).toMatchObject({
      valid: false,
      errorMessage: expect.stringContaining("format"),
    });
  });
});
