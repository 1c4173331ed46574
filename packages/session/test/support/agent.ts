// Tools and transcript checks shared by the agent-bridge tests and the crash child.
import type { AgentMessage, AgentTool } from "@tern/agent";
import type { Message } from "@tern/ai";

/** A tool that waits `ms` (so a kill can land mid-execution) and echoes its `text`. */
export function slowEcho(ms = 0): AgentTool<{ text: string }> {
  return {
    name: "echo",
    description: "Echoes text after a pause",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    async execute(args, { signal }) {
      if (ms > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          signal.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return `echo: ${args.text}`;
    },
  };
}

/** Every tool call has exactly one result, right after its assistant message (before the next one). */
export function transcriptProblems(messages: readonly AgentMessage[]): string[] {
  const problems: string[] = [];
  const list = messages as Message[];
  for (let i = 0; i < list.length; i++) {
    const message = list[i]!;
    if (message.role === "toolResult") continue;
    if (message.role !== "assistant") continue;
    const calls = message.content.filter((part) => part.type === "toolCall").map((part) => part.id);
    const results: string[] = [];
    for (let j = i + 1; j < list.length && list[j]!.role === "toolResult"; j++)
      results.push((list[j] as { toolCallId: string }).toolCallId);
    if (JSON.stringify(results.slice().sort()) !== JSON.stringify(calls.slice().sort()))
      problems.push(`message ${i}: calls ${calls.join(",")} but results ${results.join(",")}`);
  }
  return problems;
}
