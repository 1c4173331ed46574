// HTTP + SSE with real clients: FIM One's channels in their exact order for a run with a tool,
// reconnection with Last-Event-ID (the eventsource client does it itself), a client that leaves
// while the run goes on, and the API's 4xx answers.
import { fauxText, fauxToolCall } from "@tern/ai/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpServer, startServer } from "../src/http/server.js";
import { lookupTool, type TestEngine, testEngine } from "./support/engine.js";
import { eventSourceRun, type Frame, JSON_TYPE, parseSse, postMessage } from "./support/sse.js";

let env: TestEngine;
let server: HttpServer;

async function start(options: Parameters<typeof testEngine>[0] = {}, token?: string) {
  env = testEngine(options);
  server = await startServer({ engine: env.engine, sseRetryMs: 20, ...(token ? { token } : {}) });
}

async function newSession(headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${server.url}/api/sessions`, {
    method: "POST",
    headers: { ...JSON_TYPE, ...headers },
    body: "{}",
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { session: { id: string } }).session.id;
}

afterEach(async () => {
  await server?.close();
  await env?.close();
});

/** The frames without the numbers that depend on timing. */
function shape(frames: Frame[]) {
  return frames.map(({ event, data }) => {
    const { iter_elapsed, elapsed, usage, ...rest } = data;
    if (iter_elapsed !== undefined) expect(typeof iter_elapsed).toBe("number");
    if (elapsed !== undefined) expect(typeof elapsed).toBe("number");
    if (usage !== undefined)
      expect(Object.keys(usage as object).sort()).toEqual([
        "completion_tokens",
        "cost",
        "prompt_tokens",
        "total_tokens",
      ]);
    return { event, data: rest };
  });
}

const TOOL_RUN = [
  { content: [fauxText("Let me check."), fauxToolCall("lookup", { q: "x" }, "call_1")] },
  "The answer is 42.",
];

describe("SSE run stream", () => {
  it("sends FIM One's channels in order for a run with a tool", async () => {
    await start({ faux: { replies: TOOL_RUN }, agent: { tools: [lookupTool] } });
    const id = await newSession();
    const { frames } = await eventSourceRun(server.url, id, "What is it?");
    expect(shape(frames)).toEqual([
      { event: "step", data: { type: "thinking", status: "start", iteration: 1 } },
      {
        event: "step",
        data: {
          type: "thinking",
          status: "done",
          iteration: 1,
          reasoning: "Let me check.",
          text: "Let me check.",
        },
      },
      {
        event: "step",
        data: {
          type: "iteration",
          status: "start",
          iteration: 1,
          tool_call_id: "call_1",
          tool_name: "lookup",
          tool_args: { q: "x" },
          reasoning: "Let me check.",
        },
      },
      {
        event: "step",
        data: {
          type: "iteration",
          status: "done",
          iteration: 1,
          tool_call_id: "call_1",
          tool_name: "lookup",
          tool_args: { q: "x" },
          reasoning: "Let me check.",
          observation: "found x",
          error: null,
        },
      },
      { event: "step", data: { type: "thinking", status: "start", iteration: 2 } },
      {
        event: "step",
        data: { type: "thinking", status: "done", iteration: 2, reasoning: "", text: "The answer is 42." },
      },
      { event: "step", data: { type: "answer", status: "start" } },
      { event: "answer", data: { status: "start" } },
      { event: "answer", data: { status: "delta", content: "The answer is 42." } },
      { event: "answer", data: { status: "done" } },
      { event: "done", data: { answer: "The answer is 42.", iterations: 2, stop_reason: "stop" } },
    ]);
    // Every frame has an id, and they only grow.
    const ids = frames.map((frame) => frame.id);
    expect(ids.every((frameId) => /^\d+(\.\d+)?$/.test(frameId))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("reconnects with Last-Event-ID and gets exactly the frames it missed", async () => {
    // Paced so the cut lands mid-run; synthesis streams the answer in many deltas.
    const { answerSynthesis } = await import("@tern/agent");
    const replies = [
      { content: [fauxToolCall("lookup", { q: "a" }, "call_a")] },
      { content: [fauxToolCall("lookup", { q: "b" }, "call_b")] },
      "Both were found.",
      "Both a and b were found in the index, so the answer is yes.",
    ];
    await start({
      faux: { replies: [...replies, ...replies], tokenDelayMs: 3 },
      agent: { tools: [lookupTool], policies: [answerSynthesis()] },
    });
    const whole = await eventSourceRun(server.url, await newSession(), "Are a and b there?");
    const cut = await eventSourceRun(server.url, await newSession(), "Are a and b there?", {
      cut: { after: 5 },
    });

    expect(cut.requests.length).toBeGreaterThanOrEqual(2);
    expect(cut.requests[0]!.lastEventId).toBeNull();
    expect(cut.requests[1]!.url).toMatch(/\/events$/);
    expect(cut.requests[1]!.lastEventId).toBe(cut.frames[4]!.id);
    // Nothing lost, nothing twice: the same frames as an uninterrupted run.
    expect(shape(cut.frames)).toEqual(shape(whole.frames));
    expect(new Set(cut.frames.map((f) => f.id)).size).toBe(cut.frames.length);
    const deltas = cut.frames.filter((f) => f.event === "answer" && f.data.status === "delta");
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.map((f) => f.data.content).join("")).toBe(
      "Both a and b were found in the index, so the answer is yes.",
    );
  });

  it("keeps the run going when the client leaves, and replays it to a new one", async () => {
    await start({ faux: { replies: TOOL_RUN, tokenDelayMs: 5 }, agent: { tools: [lookupTool] } });
    const id = await newSession();
    const controller = new AbortController();
    const res = await fetch(`${server.url}/api/sessions/${id}/messages`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ content: "go" }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await env.engine.get(id)!.idle();
    const later = await fetch(`${server.url}/api/sessions/${id}/events`);
    const frames = parseSse(await later.text());
    expect(frames.at(-1)).toMatchObject({
      event: "done",
      data: { answer: "The answer is 42.", stop_reason: "stop" },
    });
    expect(frames.filter((f) => f.event === "step" && f.data.type === "iteration")).toHaveLength(2);
  });

  it("streams an interrupt as an inject frame and the run takes it in", async () => {
    const { interrupts } = await import("@tern/agent");
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slowTool = {
      ...lookupTool,
      execute: async () => {
        await gate;
        return "slow result";
      },
    };
    await start({
      faux: {
        replies: [
          { content: [fauxToolCall("lookup", { q: "x" })] },
          ({ context }) => `saw ${context.messages.length}`,
        ],
      },
      agent: { tools: [slowTool], policies: [interrupts()] },
    });
    const id = await newSession();
    const frames: Frame[] = [];
    const run = eventSourceRun(server.url, id, "start", {
      onFrame: async (frame) => {
        frames.push(frame);
        if (frame.event === "step" && frame.data.type === "iteration" && frame.data.status === "start") {
          const res = await fetch(`${server.url}/api/sessions/${id}/interrupt`, {
            method: "POST",
            headers: JSON_TYPE,
            body: JSON.stringify({ content: "also check y" }),
          });
          expect(res.status).toBe(202);
          release();
        }
      },
    });
    const { frames: all } = await run;
    const inject = all.find((f) => f.event === "inject");
    expect(inject?.data).toMatchObject({ type: "inject", kind: "interrupt" });
    expect(String(inject?.data.content)).toContain("also check y");
    // user, assistant, tool result, interrupt: the second call saw four messages.
    expect(all.at(-1)?.data.answer).toBe("saw 4");
  });
});

describe("HTTP API errors", () => {
  it("answers bad JSON, unknown sessions and a second run with 4xx JSON, and stays up", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slowTool = {
      ...lookupTool,
      execute: async () => {
        await gate;
        return "ok";
      },
    };
    await start({
      faux: { replies: [{ content: [fauxToolCall("lookup", { q: "x" })] }, "done"] },
      agent: { tools: [slowTool] },
    });
    const id = await newSession();

    const bad = await fetch(`${server.url}/api/sessions`, {
      method: "POST",
      headers: JSON_TYPE,
      body: "{not json",
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "bad_json" } });

    const unknown = await fetch(`${server.url}/api/sessions/no-such-session/messages`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ content: "hi" }),
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: "not_found" } });

    const empty = await fetch(`${server.url}/api/sessions/${id}/messages`, {
      method: "POST",
      headers: JSON_TYPE,
      body: "{}",
    });
    expect(empty.status).toBe(400);

    const first = fetch(`${server.url}/api/sessions/${id}/messages`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ content: "one" }),
    });
    await (await first).body!.getReader().read();
    const second = await fetch(`${server.url}/api/sessions/${id}/messages`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ content: "two" }),
    });
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ error: { code: "busy" } });
    release();
    await env.engine.get(id)!.idle();

    const idleInterrupt = await fetch(`${server.url}/api/sessions/${id}/interrupt`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ content: "hey" }),
    });
    expect(idleInterrupt.status).toBe(409);
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    expect((await fetch(`${server.url}/api/sessions/${id}/abort`, { method: "POST" })).status).toBe(200);

    const health = await fetch(`${server.url}/healthz`);
    expect(await health.json()).toMatchObject({ ok: true });
    const listed = (await (await fetch(`${server.url}/api/sessions`)).json()) as {
      sessions: { id: string }[];
    };
    expect(listed.sessions.map((s) => s.id)).toContain(id);
    const one = (await (await fetch(`${server.url}/api/sessions/${id}`)).json()) as { messages: unknown[] };
    expect(one.messages).toHaveLength(4);
  });

  it("requires the bearer token when one is set, and refuses a public bind without one", async () => {
    await start({ faux: { replies: ["hi"] } }, "s3cret");
    expect((await fetch(`${server.url}/api/sessions`)).status).toBe(401);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const auth = { authorization: "Bearer s3cret" };
    const id = await newSession(auth);
    const frames = await postMessage(server.url, id, "hello", auth);
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { answer: "hi" } });
    await expect(startServer({ engine: env.engine, host: "0.0.0.0" })).rejects.toThrow(/requires a token/);
  });
});
