// OpenAI Agents SDK (@openai/agents): one `Agent` (stateless, reused) on a Chat Completions model
// from an `OpenAIProvider` pointed at the server (`useResponses: false`), strict JSON-Schema
// function tools, `run(..., { stream: true })`, text from raw `output_text_delta` events.
// Tracing is disabled (it would try to export to OpenAI).

import { Agent, OpenAIProvider, run, setTracingDisabled, tool } from "@openai/agents";
import { BENCH_KEY, BENCH_MODEL, type RuntimeAdapter, STEP_HEADROOM } from "./runtime.js";

export const adapter: RuntimeAdapter = {
  async setup({ baseUrl, system, tools, turns }) {
    setTracingDisabled(true);
    const provider = new OpenAIProvider({ apiKey: BENCH_KEY, baseURL: baseUrl, useResponses: false });
    const model = await provider.getModel(BENCH_MODEL);
    const agent = new Agent({
      name: "bench",
      instructions: system,
      model,
      tools: tools.map((def) =>
        tool({
          name: def.name,
          description: def.description,
          parameters: def.parameters,
          strict: true,
          execute: async (args) => def.execute(args as Record<string, unknown>),
        }),
      ),
    });
    return async (prompt, hooks) => {
      const result = await run(agent, prompt, { stream: true, maxTurns: turns + STEP_HEADROOM });
      for await (const event of result) {
        if (event.type === "raw_model_stream_event" && event.data.type === "output_text_delta")
          hooks.onText(event.data.delta);
      }
      await result.completed;
      if (result.error) throw result.error;
      return { answer: String(result.finalOutput ?? "") };
    };
  },
};
