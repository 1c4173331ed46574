// pi (@mariozechner/pi-agent-core + pi-ai): an `Agent` per run with a custom
// `openai-completions` model pointed at the server, tools with plain JSON Schema parameters
// (pi validates those as JSON Schema), text from `message_update` text deltas.

import { Agent, type AgentTool } from "@mariozechner/pi-agent-core";
import type { AssistantMessage, Model, TSchema } from "@mariozechner/pi-ai";
import { BENCH_KEY, BENCH_MODEL, type RuntimeAdapter } from "./runtime.js";

export const adapter: RuntimeAdapter = {
  async setup({ baseUrl, system, tools }) {
    const model: Model<"openai-completions"> = {
      id: BENCH_MODEL,
      name: BENCH_MODEL,
      api: "openai-completions",
      provider: "bench",
      baseUrl,
      reasoning: false,
      input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: 200_000,
      maxTokens: 4096,
    };
    const piTools: AgentTool[] = tools.map((def) => ({
      name: def.name,
      label: def.name,
      description: def.description,
      parameters: def.parameters as unknown as TSchema,
      execute: async (_id, params) => ({
        content: [{ type: "text", text: def.execute(params as Record<string, unknown>) }],
        details: {},
      }),
    }));
    return async (prompt, hooks) => {
      const agent = new Agent({
        initialState: { systemPrompt: system, model, tools: piTools },
        getApiKey: () => BENCH_KEY,
      });
      agent.subscribe((event) => {
        if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")
          hooks.onText(event.assistantMessageEvent.delta);
      });
      await agent.prompt(prompt);
      const last = agent.state.messages.at(-1) as AssistantMessage | undefined;
      if (agent.state.errorMessage || last?.role !== "assistant" || last.stopReason !== "stop")
        throw new Error(
          `pi ended with ${last?.stopReason}: ${agent.state.errorMessage ?? last?.errorMessage}`,
        );
      const answer = last.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      return { answer };
    };
  },
};
