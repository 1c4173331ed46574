// @tern/sdk driving a real `tern serve --stdio` child process (the server entry bundled with
// esbuild) whose model is a scripted OpenAI-compatible server on loopback: the Copilot SDK's core
// flow, through tern's own client.
import { type FauxReply, type ScriptServer, serveScript, textReply, toolReply } from "@tern/ai/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempHome } from "../../session/test/support/helpers.js";
import type { SessionEvent, TernClient } from "../src/index.js";
import { startStdioClient } from "./support/stdio-client.js";

let model: ScriptServer;
let home: ReturnType<typeof tempHome>;
let client: TernClient;

async function startClient(replies: FauxReply[]): Promise<void> {
  model.push(...replies);
  client = await startStdioClient(model.providerUrl, home.home, home.home);
}

beforeAll(async () => {
  model = await serveScript();
  home = tempHome("tern-sdk-");
});

afterAll(async () => {
  await client?.stop();
  await model.close();
  home.cleanup();
});

describe("@tern/sdk over stdio", () => {
  it("creates a session with a tool, streams, asks permission, waits for idle, resumes and lists", async () => {
    await startClient([
      toolReply([{ id: "call_1", name: "get_weather", args: { city: "Oslo" } }], { text: "Looking." }),
      textReply("Oslo is cold today."),
      textReply("Still cold."),
    ]);
    expect((await client.ping("hi")).protocolVersion).toBe(3);
    expect((await client.listModels()).map((m) => m.id)).toContain("scripted");

    const calls: unknown[] = [];
    const asked: unknown[] = [];
    const hooked: unknown[] = [];
    const session = await client.createSession({
      systemMessage: "Answer in one line.",
      tools: [
        {
          name: "get_weather",
          description: "Weather in a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          handler: (args: { city: string }) => {
            calls.push(args);
            return `cold in ${args.city}`;
          },
        },
      ],
      onPermissionRequest: (request) => {
        asked.push(request);
        return { kind: "approve-once" };
      },
      hooks: {
        onUserPromptSubmitted: (input) => {
          hooked.push(input.prompt);
          return undefined;
        },
      },
    });
    const deltas: string[] = [];
    session.on("assistant.message_delta", (event) => deltas.push(String(event.data.deltaContent)));
    const types: string[] = [];
    session.on((event: SessionEvent) => types.push(event.type));

    const reply = await session.sendAndWait("Weather in Oslo?", 15_000);
    expect(reply?.data.content).toBe("Oslo is cold today.");
    expect(calls).toEqual([{ city: "Oslo" }]);
    expect(asked).toEqual([
      expect.objectContaining({ kind: "custom-tool", toolName: "get_weather", args: { city: "Oslo" } }),
    ]);
    expect(hooked).toEqual(["Weather in Oslo?"]);
    expect(deltas.join("")).toBe("Looking.Oslo is cold today.");
    expect(types).toContain("tool.execution_complete");
    expect(types.at(-1)).toBe("session.idle");
    // The model saw the client's system message and the tool's result.
    const second = model.requests[1]!.body as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(second.messages[0])).toContain("Answer in one line.");
    expect(JSON.stringify(second.messages.at(-1))).toContain("cold in Oslo");

    const id = session.sessionId;
    await session.disconnect();
    expect((await client.listSessions()).map((s) => s.sessionId)).toContain(id);
    expect(await client.getLastSessionId()).toBe(id);

    const resumed = await client.resumeSession(id, { onPermissionRequest: () => ({ kind: "approve-once" }) });
    const history = await resumed.getMessages();
    expect(
      history.map((e) => e.type).filter((t) => t === "user.message" || t === "assistant.message"),
    ).toEqual(["user.message", "assistant.message", "assistant.message"]);
    expect(history.at(-1)?.type).toBe("session.resume");
    expect((await resumed.sendAndWait("And now?", 15_000))?.data.content).toBe("Still cold.");
    await client.deleteSession(id);
    expect((await client.listSessions()).map((s) => s.sessionId)).not.toContain(id);
  });
});
