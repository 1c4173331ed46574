// Vercel AI SDK (`ai` + `@ai-sdk/openai-compatible`): `streamText` with a step limit, tools
// from `jsonSchema()`, text from the `fullStream`'s text-delta parts. With `select`, the peer gets
// the same help tern's toolSelection gives: one forced `select_tools` call with the same system
// prompt, task, catalog and instruction before the run, and `activeTools` set to the valid
// names it returns (at most 6; anything unusable keeps every tool, as in tern).

import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { jsonSchema, stepCountIs, streamText, type ToolSet, tool } from "ai";
// tern's own catalogue and cap, so this peer's selection call is the same prompt as tern's; they
// are internals of the tool-selection policy, not @tern/agent's public API, hence the paths.
import { catalog } from "../../../packages/agent/src/policies/tool-catalog.js";
import { DEFAULT_MAX_SELECTED_TOOLS } from "../../../packages/agent/src/policies/tool-selection.js";
import { BENCH_KEY, BENCH_MODEL, type RuntimeAdapter, STEP_HEADROOM } from "./runtime.js";
import { ternTools } from "./tern.js";

const SELECTOR_SYSTEM =
  "You choose which tools an assistant needs for a task. You never do the task yourself.";
const SELECTION_SCHEMA = {
  type: "object",
  properties: { tools: { type: "array", items: { type: "string" } } },
  required: ["tools"],
} as const;

export function vercelAdapter(select: boolean): RuntimeAdapter {
  return {
    async setup(setup) {
      const { baseUrl, system, tools, turns } = setup;
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
      const toolCatalog = catalog(ternTools(setup));
      const selectTools = async (prompt: string): Promise<string[] | undefined> => {
        const instruction = `Pick the tools needed for this task: at most ${DEFAULT_MAX_SELECTED_TOOLS}, by exact name, most useful first. Answer as {"tools": ["name", ...]}.`;
        // Streamed, like every call of the runtime (the bench server speaks SSE only).
        const result = streamText({
          model,
          system: SELECTOR_SYSTEM,
          prompt: [`Task:\n${prompt}`, `Tools:\n${toolCatalog}`, instruction].join("\n\n"),
          tools: { select_tools: tool({ inputSchema: jsonSchema<{ tools: string[] }>(SELECTION_SCHEMA) }) },
          toolChoice: { type: "tool", toolName: "select_tools" },
        });
        await result.consumeStream();
        const names = ((await result.toolCalls)[0]?.input as { tools?: unknown } | undefined)?.tools;
        const valid = Array.isArray(names)
          ? [
              ...new Set(
                names.flatMap((n) => (typeof n === "string" && n.trim() in toolSet ? [n.trim()] : [])),
              ),
            ]
          : [];
        return valid.length > 0 ? valid.slice(0, DEFAULT_MAX_SELECTED_TOOLS) : undefined;
      };
      return async (prompt, hooks) => {
        const active = select ? await selectTools(prompt) : undefined;
        const result = streamText({
          model,
          system,
          prompt,
          ...(tools.length > 0 && { tools: toolSet }),
          ...(active && { activeTools: active }),
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
}

export const adapter = vercelAdapter(false);
