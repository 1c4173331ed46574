// The README's usage example, run as written.

import { Agent, agentLoop, defineTool, HookRegistry, userMessage } from "@tern/agent";
import { createFaux, fauxToolCall } from "@tern/ai";
import { expect, it } from "vitest";
import { z } from "zod";

it("runs the README example", async () => {
  const lines: string[] = [];
  const log = (...parts: unknown[]) => lines.push(parts.map(String).join(" "));

  // --- README example start
  const add = defineTool({
    name: "add",
    description: "Add two numbers",
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => String(a + b),
  });

  const hooks = new HookRegistry();
  hooks.on("PreToolUse", ({ args }) => (args.a === 13 ? { decision: "deny", reason: "no 13s" } : undefined), {
    matcher: "add",
  });

  // A scripted model; any @tern/ai model works the same way.
  const faux = createFaux({ replies: [{ content: [fauxToolCall("add", { a: 2, b: 3 })] }, "2 + 3 = 5"] });

  const agent = new Agent({ model: faux.model, systemPrompt: "You are a calculator.", tools: [add], hooks });
  agent.subscribe((event) => {
    if (event.type === "tool_execution_end") log(event.toolName, JSON.stringify(event.result.content));
  });
  const result = await agent.prompt("What is 2 + 3?");
  log(result.answer, result.stopReason, result.iterations);

  // The same run without the Agent class: an event stream and its result.
  faux.push("Hello!");
  const run = agentLoop([userMessage("hi", Date.now())], { messages: [] }, { model: faux.model });
  for await (const event of run) if (event.type === "agent_end") log(event.answer);
  // --- README example end

  expect(lines).toEqual(['add [{"type":"text","text":"5"}]', "2 + 3 = 5 stop 2", "Hello!"]);
  expect((await run.result()).stopReason).toBe("stop");
});
