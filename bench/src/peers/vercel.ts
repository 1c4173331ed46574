// Vercel AI SDK (`ai` + `@ai-sdk/openai-compatible`): `streamText` with a step limit, tools
// from `jsonSchema()`, text from the `fullStream`'s text-delta parts.

import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { jsonSchema, stepCountIs, streamText, type ToolSet, tool } from "ai";
import { BENCH_KEY, BENCH_MODEL, type RuntimeAdapter, STEP_HEADROOM } from "./runtime.js";

export const adapter: RuntimeAdapter = {
  async setup({ baseUrl, system, tools, turns }) {
    const provider = createOpenAICompatible({
      name: "bench",
      baseURL: baseUrl,
      apiKey: BENCH_KEY,
      includeUsage: true,
    });
    const model = provider.chatModel(BENCH_MODEL);
    const toolSet: ToolSet = {};
    for (const def of tools)
      toolSet[def.name] = tool({
        description: def.description,
        inputSchema: jsonSchema<Record<string, unknown>>(
          def.parameters as unknown as Parameters<typeof jsonSchema>[0],
        ),
        execute: async (args: Record<string, unknown>) => def.execute(args),
      });
    return async (prompt, hooks) => {
      const result = streamText({
        model,
        system,
        prompt,
        ...(tools.length > 0 && { tools: toolSet }),
        stopWhen: stepCountIs(turns + STEP_HEADROOM),
      });
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") hooks.onText(part.text);
        else if (part.type === "error") throw part.error;
      }
      const finish = await result.finishReason;
      if (finish !== "stop") throw new Error(`vercel ai finished with ${finish}`);
      return { answer: await result.text };
    };
  },
};
