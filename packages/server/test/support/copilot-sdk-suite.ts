// The official @github/copilot-sdk against tern's JSON-RPC server on a TCP port (its external
// server mode, RuntimeConnection.forUri), with a scripted model: a custom tool runs in the SDK's
// handler after a permission request reaches the SDK's handler, deltas stream, sendAndWait
// resolves on session.idle, hooks are invoked, and the session resumes with its history. The
// suite takes its server from a target: one `serve --rpc-port` here (copilot-sdk.test.ts), a
// two-node cluster in @tern/cluster's tests. A target whose runs execute where the client's
// handlers cannot be reached (a cluster) must refuse client tools and hooks, naming the limit.
import { CopilotClient, RuntimeConnection, type SessionEvent } from "@github/copilot-sdk";
import { type FauxProvider, fauxText, fauxToolCall } from "@tern/ai/testing";
import type { EventEntry } from "@tern/session";
import { afterEach, describe, expect, it } from "vitest";
import type { testEngine } from "./engine.js";

const weatherTool = (calls: unknown[]) => ({
  name: "get_weather",
  description: "The weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  handler: async (args: { city: string }) => {
    calls.push(args);
    return `sunny in ${args.city}`;
  },
});

export interface CopilotServer {
  /** The JSON-RPC port a run is submitted on. */
  port: number;
  /** Another node's port (the same server for a single one). */
  otherPort: number;
  faux: FauxProvider;
  /** The session's persisted log. */
  history(id: string): Promise<EventEntry[]>;
  close(): Promise<void>;
}

export interface CopilotTarget {
  /** Named in the suite's title. */
  name: string;
  /** Whether the client's tools and hooks are served (else they must be refused). */
  clientTools: boolean;
  start(options: Parameters<typeof testEngine>[0], token?: string): Promise<CopilotServer>;
}

export function copilotSdkSuite(target: CopilotTarget): void {
  let server: CopilotServer;
  let client: CopilotClient;
  let others: CopilotClient[] = [];
  let env: { faux: FauxProvider; engine: { history(id: string): Promise<EventEntry[]> } };

  async function start(replies: Parameters<typeof testEngine>[0] = {}, token?: string) {
    server = await target.start(replies, token);
    env = { faux: server.faux, engine: { history: (id) => server.history(id) } };
    client = connectTo(server.port, token);
    await client.start();
  }

  function connectTo(port: number, token?: string): CopilotClient {
    const made = new CopilotClient({
      connection: RuntimeConnection.forUri(`127.0.0.1:${port}`, token ? { connectionToken: token } : {}),
    });
    others.push(made);
    return made;
  }

  afterEach(async () => {
    for (const made of others) await made.stop();
    others = [];
    await server?.close();
  });

  const withTools = target.clientTools ? it : it.skip;

  describe(`@github/copilot-sdk against ${target.name}`, () => {
    withTools(
      "runs the core flow: tool, permission, deltas, sendAndWait, hooks, resume, history",
      async () => {
        await start({
          faux: {
            replies: [
              { content: [fauxText("Checking."), fauxToolCall("get_weather", { city: "Paris" }, "call_w1")] },
              "It is sunny in Paris.",
              ({ context }) =>
                `You asked ${context.messages.filter((m) => m.role === "user").length} questions.`,
            ],
          },
        });
        expect((await client.getStatus()).protocolVersion).toBe(3);
        expect((await client.getAuthStatus()).isAuthenticated).toBe(true);
        const models = await client.listModels();
        expect(models.map((m) => m.id)).toEqual([env.faux.model.id]);

        const toolCalls: unknown[] = [];
        const permissions: unknown[] = [];
        const preToolUse: unknown[] = [];
        const session = await client.createSession({
          model: env.faux.model.id,
          streaming: true,
          systemMessage: { content: "Be brief." },
          tools: [weatherTool(toolCalls)],
          onPermissionRequest: (request) => {
            permissions.push(request);
            return { kind: "approve-once" };
          },
          hooks: {
            onPreToolUse: (input) => {
              preToolUse.push(input);
              return { permissionDecision: "allow" };
            },
          },
        });
        const events: SessionEvent[] = [];
        session.on((event) => events.push(event));

        const reply = await session.sendAndWait({ prompt: "Weather in Paris?" }, 30_000);
        expect(reply?.data.content).toBe("It is sunny in Paris.");
        expect(toolCalls).toEqual([{ city: "Paris" }]);
        expect(permissions).toEqual([
          expect.objectContaining({
            kind: "custom-tool",
            toolName: "get_weather",
            toolCallId: "call_w1",
            args: { city: "Paris" },
          }),
        ]);
        expect(preToolUse).toEqual([
          expect.objectContaining({ toolName: "get_weather", toolArgs: { city: "Paris" } }),
        ]);
        expect(env.faux.requests[0]!.context.systemPrompt).toBe("Be brief.");

        const types = events.map((e) => e.type);
        expect(types.filter((t) => t === "assistant.message_delta").length).toBeGreaterThan(2);
        const deltas = events.flatMap((e) => (e.type === "assistant.message_delta" ? [e] : []));
        expect(deltas.map((e) => e.data.deltaContent).join("")).toBe("Checking.It is sunny in Paris.");
        // The persisted sequence of one run (ephemeral deltas and usage left out).
        expect(types.filter((t) => !isEphemeral(events, t))).toEqual([
          "user.message",
          "assistant.turn_start",
          "assistant.message",
          "assistant.turn_end",
          "tool.execution_start",
          "permission.requested",
          "permission.completed",
          "external_tool.requested",
          "external_tool.completed",
          "tool.execution_complete",
          "assistant.turn_start",
          "assistant.message",
          "assistant.turn_end",
        ]);
        expect(types.at(-1)).toBe("session.idle");
        const first = events.find((e) => e.type === "assistant.message");
        expect(first?.type === "assistant.message" && first.data.toolRequests).toEqual([
          expect.objectContaining({
            toolCallId: "call_w1",
            name: "get_weather",
            arguments: { city: "Paris" },
          }),
        ]);
        for (const event of events) {
          expect(typeof event.id).toBe("string");
          expect(typeof event.timestamp).toBe("string");
        }

        const id = session.sessionId;
        expect(await client.getLastSessionId()).toBe(id);
        expect((await client.listSessions()).map((s) => s.sessionId)).toContain(id);
        const live = await session.getEvents();
        await session.disconnect();

        const resumed = await client.resumeSession(id, {
          onPermissionRequest: () => ({ kind: "approve-once" }),
        });
        const history = await resumed.getEvents();
        expect(history.map((e) => e.type)).toEqual([...live.map((e) => e.type), "session.resume"]);
        // The log mapped again gives the live stream's ids.
        const liveIds = events.filter((e) => !e.ephemeral).map((e) => e.id);
        expect(history.filter((e) => liveIds.includes(e.id))).toHaveLength(liveIds.length);
        expect(history[0]).toMatchObject({ type: "session.start", data: { sessionId: id } });
        expect(history.find((e) => e.type === "user.message")?.data).toMatchObject({
          content: "Weather in Paris?",
        });
        expect(history.some((e) => e.ephemeral)).toBe(false);

        const again = await resumed.sendAndWait({ prompt: "And now?" }, 30_000);
        expect(again?.data.content).toBe("You asked 2 questions.");
        // The session's own log: persisted events only, the server's among them.
        const logged = new Set((await env.engine.history(id)).map((entry) => entry.event.type));
        for (const type of [
          "session_start",
          "permission_request",
          "external_tool_request",
          "session_resume",
          "agent_end",
        ])
          expect(logged.has(type)).toBe(true);
        for (const type of ["message_update", "idle", "answer_delta"]) expect(logged.has(type)).toBe(false);
        await client.deleteSession(id);
        expect((await client.listSessions()).map((s) => s.sessionId)).not.toContain(id);
      },
    );

    withTools("maps send mode immediate to steering and enqueue to a follow-up", async () => {
      const texts = (messages: { role: string; content: unknown }[]) =>
        messages
          .filter((m) => m.role === "user")
          .map((m) => (typeof m.content === "string" ? m.content : ""));
      await start({
        faux: {
          replies: [
            { content: [fauxToolCall("get_weather", { city: "Oslo" }, "call_o")] },
            ({ context }) => `saw ${texts(context.messages).join(" + ")}`,
            ({ context }) => `then ${texts(context.messages).at(-1)}`,
          ],
        },
      });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const session = await client.createSession({
        model: env.faux.model.id,
        tools: [{ ...weatherTool([]), skipPermission: true, handler: async () => (await gate) ?? "cold" }],
        onPermissionRequest: () => ({ kind: "approve-once" }),
      });
      const users: unknown[] = [];
      session.on("user.message", (event) => users.push(event.data));
      const started = new Promise<void>((resolve) => session.on("external_tool.requested", () => resolve()));
      const done = session.sendAndWait({ prompt: "first" }, 30_000);
      await started;
      await session.send({ prompt: "steer now", mode: "immediate" });
      await session.send({ prompt: "later", mode: "enqueue" });
      release();
      expect((await done)?.data.content).toBe("then later");
      // Steering reached the call right after the tool batch; the follow-up waited for the answer.
      expect(env.faux.requests[1]!.context.messages.at(-1)).toMatchObject({
        role: "user",
        content: "steer now",
      });
      const answers = (await session.getEvents()).filter((e) => e.type === "assistant.message");
      expect(answers.map((e) => e.data.content)).toEqual(["", "saw first + steer now", "then later"]);
      expect(users).toEqual([
        expect.objectContaining({ content: "first", delivery: "idle" }),
        expect.objectContaining({ content: "steer now", delivery: "steering" }),
        expect.objectContaining({ content: "later", delivery: "queued" }),
      ]);
    });

    withTools("aborts a run waiting on a client tool: abort event, then an aborted idle", async () => {
      await start({
        faux: { replies: [{ content: [fauxToolCall("get_weather", { city: "Lima" }, "call_l")] }] },
      });
      const session = await client.createSession({
        model: env.faux.model.id,
        tools: [{ ...weatherTool([]), skipPermission: true, handler: () => new Promise<string>(() => {}) }],
        onPermissionRequest: () => ({ kind: "approve-once" }),
      });
      const events: SessionEvent[] = [];
      session.on((event) => events.push(event));
      session.on("external_tool.requested", () => void session.abort());
      await session.sendAndWait({ prompt: "Lima?" }, 30_000);
      const tail = events.filter((e) => !e.ephemeral || e.type === "session.idle").map((e) => e.type);
      expect(tail.slice(-4)).toEqual([
        "external_tool.completed",
        "tool.execution_complete",
        "abort",
        "session.idle",
      ]);
      expect(events.at(-1)?.data).toEqual({ aborted: true });
    });

    withTools(
      "denies the tool when the permission handler says no, and the run still ends idle",
      async () => {
        await start({
          faux: {
            replies: [
              { content: [fauxToolCall("get_weather", { city: "Rome" }, "call_r")] },
              "I may not look.",
            ],
          },
        });
        const toolCalls: unknown[] = [];
        const session = await client.createSession({
          model: env.faux.model.id,
          tools: [weatherTool(toolCalls)],
          onPermissionRequest: () => ({ kind: "reject", feedback: "not today" }),
        });
        const reply = await session.sendAndWait({ prompt: "Rome?" }, 30_000);
        expect(reply?.data.content).toBe("I may not look.");
        expect(toolCalls).toEqual([]);
        const result = env.faux.requests[1]!.context.messages.at(-1);
        expect(JSON.stringify(result)).toContain("not today");
      },
    );

    it("reports a failed model call as session.error, which sendAndWait rejects with", async () => {
      await start({
        faux: { replies: [{ content: "", error: { kind: "auth", message: "upstream broke" } }] },
      });
      const session = await client.createSession({
        model: env.faux.model.id,
        onPermissionRequest: () => ({ kind: "approve-once" }),
      });
      await expect(session.sendAndWait({ prompt: "hi" }, 10_000)).rejects.toThrow(/upstream broke/);
    });

    it("needs the connection token when the server has one", async () => {
      await start({ faux: { replies: ["ok"] } }, "tok-1");
      const session = await client.createSession({
        model: env.faux.model.id,
        onPermissionRequest: () => ({ kind: "approve-once" }),
      });
      expect((await session.sendAndWait({ prompt: "hi" }, 10_000))?.data.content).toBe("ok");
      const stranger = connectTo(server.port);
      await expect(stranger.start()).rejects.toThrow(/Unauthorized/);
    });

    it("resumes a session on the other node, with its history, and runs it there", async () => {
      await start({ faux: { replies: ["First answer.", "Second answer."] } });
      const session = await client.createSession({
        model: env.faux.model.id,
        onPermissionRequest: () => ({ kind: "approve-once" }),
      });
      expect((await session.sendAndWait({ prompt: "one" }, 30_000))?.data.content).toBe("First answer.");
      await session.disconnect();
      const elsewhere = connectTo(server.otherPort);
      await elsewhere.start();
      const resumed = await elsewhere.resumeSession(session.sessionId, {
        onPermissionRequest: () => ({ kind: "approve-once" }),
      });
      const history = (await resumed.getEvents()).map((e) => e.type);
      expect(history).toContain("user.message");
      expect(history).toContain("assistant.message");
      expect((await resumed.sendAndWait({ prompt: "two" }, 30_000))?.data.content).toBe("Second answer.");
      const logged = (await env.engine.history(session.sessionId)).map((entry) => entry.event.type);
      expect(logged.filter((type) => type === "agent_end")).toHaveLength(2);
    });

    (target.clientTools ? it.skip : it)(
      "refuses client tools and client hooks with an error naming the limit",
      async () => {
        await start({ faux: { replies: ["unused"] } });
        const approve = () => ({ kind: "approve-once" }) as const;
        await expect(
          client.createSession({ tools: [weatherTool([])], onPermissionRequest: approve }),
        ).rejects.toThrow(/client tools are not offered by a cluster node/);
        await expect(
          client.createSession({ hooks: { onPreToolUse: () => ({}) }, onPermissionRequest: approve }),
        ).rejects.toThrow(/client hooks are not offered by a cluster node/);
        // Nothing was made by the refused calls.
        expect(await client.listSessions()).toEqual([]);
      },
    );
  });
}

function isEphemeral(events: SessionEvent[], type: string): boolean {
  return events.some((e) => e.type === type && e.ephemeral === true);
}
