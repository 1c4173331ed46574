import { createFaux, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentEvent, type AgentTool, agentLoop, runAgentLoop } from "../src/index.js";
import { collect, sleep, types, user } from "./helpers.js";

describe("event back-pressure", () => {
  it("does not move on while the consumer is still handling an event", async () => {
    let executed = false;
    const tool: AgentTool<{ n: number }> = {
      name: "mark",
      description: "marks",
      parameters: z.object({ n: z.number() }),
      execute: () => {
        executed = true;
        return "marked";
      },
    };
    const faux = createFaux({ replies: [{ content: [fauxToolCall("mark", { n: 1 }, "m")] }, "ok"] });
    const stream = agentLoop([user("go")], { messages: [], tools: [tool] }, { model: faux.model });
    const checks: boolean[] = [];
    for await (const event of stream) {
      if (event.type === "tool_execution_start") {
        await sleep(20);
        checks.push(executed);
      }
      if (event.type === "turn_start" && faux.requests.length === 0) {
        await sleep(10);
        checks.push(faux.requests.length === 0);
      }
    }
    expect(checks).toEqual([true, false]);
    expect(executed).toBe(true);
  });

  it("awaits the callback form's promise", async () => {
    const faux = createFaux({ replies: ["ok"] });
    const seen: string[] = [];
    let inFlight = 0;
    let overlap = false;
    const result = await runAgentLoop(
      [user("go")],
      { messages: [] },
      { model: faux.model },
      async (event) => {
        if (++inFlight > 1) overlap = true;
        await sleep(1);
        seen.push(event.type);
        inFlight--;
      },
    );
    expect(overlap).toBe(false);
    expect(seen.at(-1)).toBe("agent_end");
    expect(result.answer).toBe("ok");
  });

  it("runs to the end when only result() is awaited, and keeps the events for later", async () => {
    const faux = createFaux({ replies: ["ok"] });
    const stream = agentLoop([user("go")], { messages: [] }, { model: faux.model });
    const result = await stream.result();
    expect(result.answer).toBe("ok");
    const events = await collect(stream);
    expect(events[0]!.type).toBe("agent_start");
    expect(events.at(-1)).toEqual({ type: "agent_end", ...result });
  });

  it("runs on without the consumer after it stops iterating", async () => {
    const faux = createFaux({ replies: [{ content: [fauxToolCall("nope", {}, "n")] }, "ok"] });
    const stream = agentLoop([user("go")], { messages: [] }, { model: faux.model });
    const seen: AgentEvent[] = [];
    for await (const event of stream) {
      seen.push(event);
      if (event.type === "turn_start") break;
    }
    const result = await stream.result();
    expect(types(seen)).toEqual(["agent_start", "turn_start"]);
    expect(result).toMatchObject({ answer: "ok", iterations: 2 });
  });
});
