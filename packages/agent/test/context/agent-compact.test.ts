import { createFaux } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent, contextGuard } from "../../src/index.js";
import { turns, user } from "./support.js";

describe("agent.compact(hint)", () => {
  it("summarises the older part on demand, keeping the pinned request", async () => {
    const faux = createFaux({ replies: ["CARD"] });
    const history = [user("Fix the parser", true), ...turns(1, 20)];
    const agent = new Agent({
      model: faux.model,
      messages: history,
      policies: [contextGuard({ budget: 10_000, keepRecentTokens: 2_000 })],
    });
    const events: AgentEvent[] = [];
    agent.subscribe((event) => {
      events.push(event);
    });
    const result = await agent.compact("focus on f03");
    expect(result.method).toBe("summary");
    expect(events.map((event) => event.type)).toEqual([
      "compaction_start",
      "model_call_start",
      "model_call_end",
      "compaction_end",
      "context_update",
    ]);
    expect(agent.state.messages[0]).toBe(history[0]);
    expect(agent.state.messages.length).toBeLessThan(history.length);
    expect(faux.requests[0]!.context.systemPrompt).toContain("focus on f03");
    expect(agent.state.usage.total.totalTokens).toBeGreaterThan(0);
  });

  it("refuses while a run is going", async () => {
    const faux = createFaux({ replies: ["done"], tokenDelayMs: 5 });
    const agent = new Agent({ model: faux.model });
    const run = agent.prompt("hi");
    await expect(agent.compact()).rejects.toThrow(/Agent is running/);
    await run;
  });
});
