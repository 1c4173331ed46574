// Plan mode as the official @github/copilot-sdk sees it: a session whose server-side default is
// the plan strategy; its steps arrive as sub-agent events and the answer as the reply.
import { CopilotClient, RuntimeConnection, type SessionEvent } from "@github/copilot-sdk";
import { fauxToolCall } from "@tern/ai/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type JsonRpcServer, serveJsonRpc } from "../src/rpc/serve.js";
import { type TestEngine, testEngine } from "./support/engine.js";

let env: TestEngine;
let server: JsonRpcServer;
let client: CopilotClient;

afterEach(async () => {
  await client?.stop();
  await server?.close();
  await env?.close();
});

describe("plan mode through @github/copilot-sdk", () => {
  it("shows steps as sub-agents and answers with the plan's answer", async () => {
    env = testEngine({
      agent: { strategy: "plan" },
      faux: {
        replies: [
          { content: [fauxToolCall("make_plan", { steps: [{ id: "look", task: "Look it up" }] })] },
          "It is 42.",
          {
            content: [fauxToolCall("analyze_results", { achieved: true, confidence: 1, reasoning: "found" })],
          },
          "The answer is 42.",
        ],
      },
    });
    server = await serveJsonRpc({ engine: env.engine, port: 0 });
    client = new CopilotClient({ connection: RuntimeConnection.forUri(`127.0.0.1:${server.port}`) });
    await client.start();
    const session = await client.createSession({
      model: env.faux.model.id,
      streaming: true,
      onPermissionRequest: () => ({ kind: "approve-once" }),
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "What is it?" }, 10_000);
    expect(reply?.data.content).toBe("The answer is 42.");
    const started = events.find((e) => e.type === "subagent.started");
    const completed = events.find((e) => e.type === "subagent.completed");
    expect(started?.data).toMatchObject({ agentName: "step:look", agentDescription: "Look it up" });
    expect(completed?.data).toMatchObject({ toolCallId: "plan-1-look", agentName: "step:look" });
    expect(events.filter((e) => e.type === "assistant.message")).toHaveLength(1);
    expect(events.some((e) => e.type === "session.plan_changed")).toBe(true);
  });
});
