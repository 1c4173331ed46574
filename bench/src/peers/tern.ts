// tern: an `Agent` per run (the documented way in), the model an `openai-completions` Model
// pointed at the server, tools in plain JSON Schema, answer text taken from `message_update`
// text deltas as a UI would.

import { Agent, type AnyAgentTool, type LoopPolicy } from "@tern/agent";
import type { Model } from "@tern/ai";
import { BENCH_KEY, BENCH_MODEL, type RunFn, type RuntimeAdapter, type RuntimeSetup } from "./runtime.js";

export function ternModel(baseUrl: string): Model {
  return {
    id: BENCH_MODEL,
    name: BENCH_MODEL,
    api: "openai-completions",
    provider: "bench",
    baseUrl,
    contextWindow: 200_000,
    maxOutputTokens: 4096,
    abilities: { toolCall: true, jsonMode: false, reasoning: false, images: false },
    prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
}

export function ternTools(setup: RuntimeSetup): AnyAgentTool[] {
  return setup.tools.map((def) => ({
    name: def.name,
    description: def.description,
    parameters: def.parameters as unknown as Record<string, unknown>,
    execute: (args: Record<string, unknown>) => def.execute(args),
  }));
}

/** A tern runtime with the given loop policies (none: the plain loop). */
export function ternAdapter(policies: () => Promise<LoopPolicy[]> = async () => []): RuntimeAdapter {
  return {
    async setup(setup): Promise<RunFn> {
      const model = ternModel(setup.baseUrl);
      const tools = ternTools(setup);
      const loopPolicies = await policies();
      return async (prompt, hooks) => {
        const agent = new Agent({
          model,
          systemPrompt: setup.system,
          tools,
          streamOptions: { apiKey: BENCH_KEY },
          ...(loopPolicies.length > 0 && { policies: loopPolicies }),
        });
        agent.subscribe((event) => {
          if (event.type === "message_update" && event.assistantEvent.type === "text_delta")
            hooks.onText(event.assistantEvent.delta);
        });
        const result = await agent.prompt(prompt);
        if (result.stopReason !== "stop")
          throw new Error(`tern stopped with ${result.stopReason}: ${result.errorMessage}`);
        return { answer: result.answer };
      };
    },
  };
}

export const adapter = ternAdapter();
