// The floor: a minimal hand loop with nothing but fetch, an SSE line splitter, JSON.parse, the
// tool call and the next request. No events, no validation, no retries: what any runtime must
// at least do, so "runtime minus baseline" is what the runtime itself costs.

import { BENCH_KEY, BENCH_MODEL, type RuntimeAdapter } from "./runtime.js";

interface Delta {
  content?: string | null;
  tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

export const adapter: RuntimeAdapter = {
  async setup({ baseUrl, system, tools, turns }) {
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const toolSpecs = tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    const url = `${baseUrl}/chat/completions`;
    const decoder = new TextDecoder();

    return async (prompt, hooks) => {
      const messages: unknown[] = [
        { role: "system", content: system },
        { role: "user", content: prompt },
      ];
      for (let turn = 0; turn < turns + 5; turn++) {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${BENCH_KEY}` },
          body: JSON.stringify({
            model: BENCH_MODEL,
            messages,
            stream: true,
            stream_options: { include_usage: true },
            ...(toolSpecs.length > 0 && { tools: toolSpecs }),
          }),
        });
        if (!response.ok || !response.body)
          throw new Error(`HTTP ${response.status}: ${await response.text()}`);
        let text = "";
        const calls: { id: string; name: string; args: string }[] = [];
        let buffer = "";
        for await (const bytes of response.body) {
          buffer += decoder.decode(bytes as Uint8Array, { stream: true });
          let end = buffer.indexOf("\n\n");
          while (end !== -1) {
            const line = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            end = buffer.indexOf("\n\n");
            if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
            const delta: Delta | undefined = JSON.parse(line.slice(6)).choices?.[0]?.delta;
            if (!delta) continue;
            if (delta.content) {
              text += delta.content;
              hooks.onText(delta.content);
            }
            for (const call of delta.tool_calls ?? []) {
              calls[call.index] ??= { id: "", name: "", args: "" };
              const slot = calls[call.index]!;
              if (call.id) slot.id = call.id;
              if (call.function?.name) slot.name = call.function.name;
              if (call.function?.arguments) slot.args += call.function.arguments;
            }
          }
        }
        if (calls.length === 0) return { answer: text };
        messages.push({
          role: "assistant",
          content: text || null,
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.args },
          })),
        });
        for (const call of calls) {
          const tool = byName.get(call.name);
          const content = tool ? tool.execute(JSON.parse(call.args || "{}")) : `unknown tool ${call.name}`;
          messages.push({ role: "tool", tool_call_id: call.id, content });
        }
      }
      throw new Error("too many turns");
    };
  },
};
