import { readFileSync } from "node:fs";
import type { AgentMessage } from "@tern/agent";
import type { Message } from "@tern/ai";
import { createFaux, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { FileSessionStore } from "../src/file-store.js";
import { createSessionAgent } from "../src/persist-agent.js";
import { INTERRUPTED_RESULT } from "../src/repair.js";
import { resumeSession } from "../src/resume.js";
import type { Session } from "../src/session.js";
import { slowEcho, transcriptProblems } from "./support/agent.js";
import { assistant, call, result, textOf, user } from "./support/helpers.js";
import { storePerTest } from "./support/store-per-test.js";

const fx = storePerTest();

async function newSession(): Promise<Session> {
  const session = await fx.store.create({ cwd: "/p" });
  fx.open.push(session);
  return session;
}

const roles = (messages: readonly AgentMessage[]) => messages.map((m) => (m as Message).role);

describe("persisting an Agent", () => {
  it("writes each message at message_end, the persisted events in order, and rebuilds the agent's context", async () => {
    const faux = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: "hi" }, "c1")] }, "done"] });
    const session = await newSession();
    const { agent } = createSessionAgent(session, { model: faux.model, tools: [slowEcho()] });
    const result = await agent.prompt("say hi");
    expect(result.stopReason).toBe("stop");

    expect(
      session.entries().map((e) => (e.type === "message" ? `message:${e.message.role}` : e.type)),
    ).toEqual([
      "model_change",
      "message:user",
      "message:assistant",
      "message:toolResult",
      "message:assistant",
    ]);
    expect(session.entries()[0]).toMatchObject({ provider: "faux", modelId: faux.model.id });
    const events = session.eventsAfter(0);
    expect(events.map((e) => e.event.type)).toEqual([
      "agent_start",
      "turn_start",
      "message_start",
      "message_end",
      "model_call_start",
      "message_start",
      "message_end",
      "model_call_end",
      "tool_execution_start",
      "tool_execution_end",
      "message_start",
      "message_end",
      "turn_end",
      "turn_start",
      "model_call_start",
      "message_start",
      "message_end",
      "model_call_end",
      "turn_end",
      "agent_end",
    ]);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));

    // Messages are stored once: events refer to the message entries, and replay puts them back.
    const raw = readFileSync(session.path!, "utf8");
    expect(raw.split('"text":"echo: hi"').length - 1).toBe(2); // the tool result entry + tool_execution_end
    const end = events.at(-1)!.event as unknown as { messages: Message[] };
    expect(end.messages).toEqual(agent.state.messages);

    const loaded = await fx.store.load(session.id);
    expect(loaded.buildContext().messages).toEqual(agent.state.messages);
    expect(loaded.eventsAfter(0)).toEqual(events);
    // A client that saw up to seq 12 gets the rest, each once.
    expect(loaded.eventsAfter(12).map((e) => e.seq)).toEqual([13, 14, 15, 16, 17, 18, 19, 20]);
    expect(loaded.eventsAfter(20)).toEqual([]);
  });

  it("a later agent resumes from the session and keeps appending to the same path", async () => {
    const faux = createFaux({ replies: ["first answer", "second answer"] });
    const session = await newSession();
    const first = createSessionAgent(session, { model: faux.model });
    await first.agent.prompt("one");
    first.binding.detach();
    await session.close();

    const reopened = await fx.store.open(session.id);
    fx.open.push(reopened);
    const second = createSessionAgent(reopened, { model: faux.model });
    expect(second.agent.state.messages).toEqual(first.agent.state.messages);
    await second.agent.prompt("two");
    expect(faux.requests[1]!.context.messages.map((m) => textOf(m))).toEqual(["one", "first answer", "two"]);
    expect(faux.requests[1]!.options.sessionId).toBe(session.id);
    // Same model as before: no second model_change.
    expect(reopened.entries().filter((e) => e.type === "model_change")).toHaveLength(1);
    const loaded = await fx.store.load(session.id);
    expect(loaded.buildContext().messages.map(textOf)).toEqual([
      "one",
      "first answer",
      "two",
      "second answer",
    ]);
  });

  it("records a compaction by the loop so the resumed session rebuilds exactly the compacted context", async () => {
    const faux = createFaux({
      replies: [
        { content: [fauxToolCall("echo", { text: "a" }, "c1")] },
        { content: [fauxToolCall("echo", { text: "b" }, "c2")] },
        "final",
      ],
    });
    const thinner = createFaux({ replies: [] });
    const session = await newSession();
    const summary: Message = { role: "user", content: "<work-card>echoed a</work-card>", timestamp: 5 };
    const { agent } = createSessionAgent(session, {
      model: faux.model,
      tools: [slowEcho()],
      // On turn 3, keep the request (pinned), a summary, and the last tool exchange; switch models.
      prepareNextTurn: async ({ turn, messages, emit }) => {
        if (turn !== 3) return;
        await emit({
          type: "compaction_start",
          reason: "test",
          tokensBefore: 999,
          messagesBefore: messages.length,
        });
        await emit({
          type: "compaction_end",
          reason: "test",
          tokensBefore: 999,
          tokensAfter: 111,
          messagesBefore: messages.length,
          messagesKept: 3,
        });
        return { messages: [messages[0]!, summary, ...messages.slice(-2)], model: thinner.model };
      },
    });
    thinner.push("final from the thinner model");
    const run = await agent.prompt("echo twice");
    expect(run.answer).toBe("final from the thinner model");
    expect(roles(agent.state.messages)).toEqual(["user", "user", "assistant", "toolResult", "assistant"]);

    const compaction = session.entries().find((e) => e.type === "compaction");
    expect(compaction).toMatchObject({
      type: "compaction",
      summary: "<work-card>echoed a</work-card>",
      tokensBefore: 999,
      tokensAfter: 111,
      messages: [summary],
    });
    expect(compaction?.type === "compaction" && compaction.pinnedEntryIds).toHaveLength(1);
    expect(
      session
        .entries()
        .filter((e) => e.type === "model_change")
        .map((e) => e.type === "model_change" && e.modelId),
    ).toEqual([faux.model.id, thinner.model.id]);

    const loaded = await fx.store.load(session.id);
    const context = loaded.buildContext();
    expect(context.messages).toEqual(agent.state.messages);
    expect(context.model).toEqual({ provider: "faux", modelId: thinner.model.id });
    // The model saw the same compacted context.
    expect(thinner.requests[0]!.context.messages.map(textOf)).toEqual([
      "echo twice",
      "<work-card>echoed a</work-card>",
      "call:echo",
      "echo: b",
    ]);
  });

  it("events of a resumed session refer to loaded messages instead of copying them", async () => {
    const session = await fx.store.create({ cwd: "/p" });
    session.appendMessage(user("a question that is stored once"));
    session.appendMessage(assistant("an answer"));
    await session.close();
    const reopened = await fx.store.open(session.id);
    fx.open.push(reopened);
    const { messages } = reopened.buildContext();
    reopened.appendEvent({ type: "context_update", messages });
    const stored = reopened.storedEvents()[0]!.event;
    expect(stored.messages).toEqual(messages.map((_, i) => ({ $entry: reopened.entries()[i]!.id })));
    expect(reopened.eventsAfter(0)[0]!.event.messages).toEqual(messages);
    expect(readFileSync(reopened.path!, "utf8").split("stored once").length - 1).toBe(1);
  });

  it("a failed write aborts the agent and is reported", async () => {
    const faux = createFaux({ replies: ["never streamed fully", "x"], tokenDelayMs: 5 });
    const session = await newSession();
    const errors: Error[] = [];
    const { agent, binding } = createSessionAgent(
      session,
      { model: faux.model },
      { onError: (e) => errors.push(e) },
    );
    await session.close(); // every append now fails
    const run = await agent.prompt("hello");
    expect(binding.error?.message).toMatch(/read-only/);
    expect(errors).toHaveLength(1);
    expect(run.stopReason).toBe("aborted");
  });
});

describe("resume after an interrupted run", () => {
  async function interrupted(build: (session: Session) => void): Promise<string> {
    const session = await fx.store.create({ cwd: "/p" });
    build(session);
    await session.close();
    return session.id;
  }

  it("gives each dangling tool call an interrupted result, then the run continues to completion", async () => {
    const id = await interrupted((s) => {
      s.appendEvent({ type: "agent_start", runId: "r1", timestamp: 1 });
      s.appendMessage(user("do two things"));
      s.appendMessage(assistant("", [call("c1", "echo"), call("c2", "echo")]));
      s.appendMessage(result("c1", "echo: one", "echo"));
    });
    const resumed = await resumeSession(fx.store, id);
    fx.open.push(resumed.session);
    expect(resumed.needsContinue).toBe(true);
    expect(resumed.repair.interruption?.kind).toBe("dangling_tool_calls");
    expect(resumed.repair.appended).toEqual([
      {
        role: "toolResult",
        toolCallId: "c2",
        toolName: "echo",
        content: [{ type: "text", text: "interrupted: the process stopped before this tool finished" }],
        isError: true,
        timestamp: expect.any(Number),
      },
    ]);
    expect(INTERRUPTED_RESULT).toBe("interrupted: the process stopped before this tool finished");
    expect(resumed.context.messages.map(textOf)).toEqual([
      "do two things",
      "call:echo|call:echo",
      "echo: one",
      "interrupted: the process stopped before this tool finished",
    ]);

    const faux = createFaux({ replies: ["recovered and done"] });
    const { agent } = createSessionAgent(resumed.session, { model: faux.model, tools: [slowEcho()] });
    const run = await agent.continue();
    expect(run.stopReason).toBe("stop");
    expect(faux.requests[0]!.context.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
    ]);
    expect(transcriptProblems(agent.state.messages)).toEqual([]);
    const again = await fx.store.load(id);
    expect(again.buildContext().messages.map(textOf).at(-1)).toBe("recovered and done");
  });

  it("a trailing user message is continued; a finished run (agent_end persisted) is left alone", async () => {
    const unanswered = await interrupted((s) => {
      s.appendEvent({ type: "agent_start", runId: "r1", timestamp: 1 });
      s.appendMessage(user("hello?"));
    });
    const resumed = await resumeSession(fx.store, unanswered);
    fx.open.push(resumed.session);
    expect(resumed.repair.interruption?.kind).toBe("unanswered_user_message");
    expect(resumed.repair.appended).toEqual([]);
    expect(resumed.needsContinue).toBe(true);

    // A run that ended on tool results (every tool asked to terminate) finished: nothing to do.
    const terminated = await interrupted((s) => {
      s.appendEvent({ type: "agent_start", runId: "r1", timestamp: 1 });
      s.appendMessage(user("stop after the tool"));
      s.appendMessage(assistant("", [call("c1", "echo")]));
      s.appendMessage(result("c1", "done", "echo"));
      s.appendEvent({ type: "agent_end", stopReason: "terminated" });
    });
    const finished = await resumeSession(fx.store, terminated);
    fx.open.push(finished.session);
    expect(finished.repair).toEqual({ appended: [], needsContinue: false });
    expect(finished.lastEventSeq).toBe(2);

    // Without an event log the transcript decides: tool results at the end await the model.
    const noLog = await interrupted((s) => {
      s.appendMessage(user("q"));
      s.appendMessage(assistant("", [call("c1", "echo")]));
      s.appendMessage(result("c1", "done", "echo"));
    });
    const fromTranscript = await resumeSession(fx.store, noLog);
    fx.open.push(fromTranscript.session);
    expect(fromTranscript.repair.interruption?.kind).toBe("unanswered_tool_results");
    expect(fromTranscript.needsContinue).toBe(true);
  });
});

describe("secrets in agent runs", () => {
  it("no key reaches the file after runs with keys set in the environment and in stream options", async () => {
    const key = "sk-proj-RunTimeKey0123456789abcdef";
    const previous = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = key;
    try {
      const keyStore = new FileSessionStore({ home: fx.home });
      const session = await keyStore.create({ cwd: "/p" });
      fx.open.push(session);
      const faux = createFaux({
        replies: [
          { content: [fauxToolCall("echo", { text: `Authorization: Bearer ${key}` }, "c1")] },
          `used ${key}`,
        ],
      });
      const { agent } = createSessionAgent(session, {
        model: { ...faux.model, headers: { authorization: `Bearer ${key}` } },
        streamOptions: { apiKey: key, headers: { "x-api-key": key } },
        tools: [slowEcho()],
      });
      await agent.prompt(`here is my key ${key}`);
      await session.flush();
      const text = readFileSync(session.path!, "utf8");
      expect(text).not.toContain(key);
      expect(text).not.toContain("RunTimeKey");
      expect(text).toContain("[REDACTED]");
    } finally {
      if (previous === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = previous;
    }
  });
});
