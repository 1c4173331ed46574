// A served session is the agent of `tern run`, and it asks its user: real `tern serve` child
// processes, a scripted OpenAI-compatible model on loopback, plain HTTP (fetch) and the official
// @github/copilot-sdk as clients. Permission questions over HTTP (answered, listed, replayed after
// a reconnect, timed out), over JSON-RPC; the coding system prompt and tools; autopilot's
// task_complete; answer synthesis; compaction; a rate-limited model call's retry.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient, RuntimeConnection, type SessionEvent } from "@github/copilot-sdk";
import { type ScriptServer, serveScript } from "@tern/ai/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textReply, toolReply } from "./support/replies.js";
import { type Frame, JSON_TYPE, sseReader, startScriptedServe, startServe } from "./support/serve.js";
import { runTern, tempDir, ternEnv } from "./support/tern.js";

let model: ScriptServer;

beforeAll(async () => {
  model = await serveScript();
});

afterAll(async () => {
  await model.close();
});

async function served(extra: string[] = []) {
  const home = tempDir();
  const work = tempDir();
  return { home, work, ...(await startScriptedServe(model.providerUrl, home, work, extra)) };
}

function post(base: string, path: string, body: unknown) {
  return fetch(`${base}${path}`, { method: "POST", headers: JSON_TYPE, body: JSON.stringify(body) });
}

async function newSession(base: string): Promise<string> {
  const res = await post(base, "/api/sessions", {});
  expect(res.status).toBe(201);
  return ((await res.json()) as { session: { id: string } }).session.id;
}

const isQuestion = (frame: Frame) => frame.event === "permission" && frame.data.status === "asked";

describe("permission questions over HTTP", () => {
  it("asks with an SSE permission frame, lists it, replays it after a reconnect, and takes the answer", async () => {
    const { base, work } = await served();
    const id = await newSession(base);
    model.push(
      toolReply([{ id: "w1", name: "write", args: { path: "note.txt", content: "hi" } }]),
      textReply("Wrote note.txt."),
    );
    const first = sseReader(await post(base, `/api/sessions/${id}/messages`, { content: "write a note" }));
    const question = await first.until(isQuestion);
    expect(question.data).toMatchObject({ tool: "write", description: expect.stringContaining("note.txt") });
    const options = (question.data.options as { id: string }[]).map((option) => option.id);
    expect(options).toEqual(["allow_once", "allow_always", "deny"]);

    // The client goes away; the question waits, listed on the session.
    await first.cancel();
    const described = (await (await fetch(`${base}/api/sessions/${id}`)).json()) as {
      permissions: { id: string }[];
    };
    expect(described.permissions.map((p) => p.id)).toEqual([question.data.id]);
    // A new stream (Last-Event-ID: before the question) gets the question again.
    const again = sseReader(
      await fetch(`${base}/api/sessions/${id}/events`, { headers: { "last-event-id": "1" } }),
    );
    expect((await again.until(isQuestion)).data.id).toBe(question.data.id);

    expect(
      (await post(base, `/api/sessions/${id}/permissions/nope`, { decision: "allow_once" })).status,
    ).toBe(404);
    expect(
      (await post(base, `/api/sessions/${id}/permissions/${question.data.id}`, { decision: "yes" })).status,
    ).toBe(400);
    const answered = await post(base, `/api/sessions/${id}/permissions/${question.data.id}`, {
      decision: "allow_once",
    });
    expect(answered.status).toBe(200);
    const frames = await again.all();
    expect(frames).toContainEqual(
      expect.objectContaining({ event: "permission", data: expect.objectContaining({ status: "allowed" }) }),
    );
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { answer: "Wrote note.txt." } });
    expect(readFileSync(join(work, "note.txt"), "utf8")).toBe("hi");
    const after = (await (await fetch(`${base}/api/sessions/${id}`)).json()) as { permissions: unknown[] };
    expect(after.permissions).toEqual([]);
  });

  it("remembers allow_always for the rest of the session: the same call is not asked again", async () => {
    const { base, work } = await served();
    const id = await newSession(base);
    const write = (callId: string, content: string) =>
      toolReply([{ id: callId, name: "write", args: { path: "same.txt", content } }]);
    model.push(write("a1", "one"), textReply("First."), write("a2", "two"), textReply("Second."));
    const first = sseReader(await post(base, `/api/sessions/${id}/messages`, { content: "write one" }));
    const question = await first.until(isQuestion);
    await post(base, `/api/sessions/${id}/permissions/${question.data.id}`, { decision: "allow_always" });
    expect((await first.all()).at(-1)).toMatchObject({ data: { answer: "First." } });
    const second = await sseReader(
      await post(base, `/api/sessions/${id}/messages`, { content: "write two" }),
    ).all();
    expect(second.filter(isQuestion)).toEqual([]);
    expect(second.at(-1)).toMatchObject({ data: { answer: "Second." } });
    expect(readFileSync(join(work, "same.txt"), "utf8")).toBe("two");
  });

  it("passes a denial's message to the model", async () => {
    const { base, work } = await served();
    const id = await newSession(base);
    model.push(
      toolReply([{ id: "w2", name: "write", args: { path: "x.txt", content: "x" } }]),
      textReply("Understood."),
    );
    const stream = sseReader(await post(base, `/api/sessions/${id}/messages`, { content: "write x" }));
    const question = await stream.until(isQuestion);
    await post(base, `/api/sessions/${id}/permissions/${question.data.id}`, {
      decision: "deny",
      message: "not in this directory",
    });
    expect((await stream.all()).at(-1)).toMatchObject({ event: "done", data: { answer: "Understood." } });
    expect(existsSync(join(work, "x.txt"))).toBe(false);
    const toolMessage = JSON.stringify((model.requests.at(-1)!.body as { messages: unknown[] }).messages);
    expect(toolMessage).toContain("not in this directory");
  });

  it("denies a question nobody answers within --permission-timeout, and says so", async () => {
    const { base, work } = await served(["--permission-timeout", "1"]);
    const id = await newSession(base);
    model.push(
      toolReply([{ id: "w3", name: "write", args: { path: "late.txt", content: "x" } }]),
      textReply("Nobody answered."),
    );
    const frames = await sseReader(
      await post(base, `/api/sessions/${id}/messages`, { content: "write" }),
    ).all();
    const denial = frames.find((frame) => frame.event === "permission" && frame.data.status === "denied");
    expect(denial?.data.reason).toMatch(/nobody answered .* within 1 s/);
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { answer: "Nobody answered." } });
    expect(existsSync(join(work, "late.txt"))).toBe(false);
  });
});

describe("the agent of tern run", () => {
  it("sends the coding system prompt and the coding tools", async () => {
    const { base, work } = await served();
    const id = await newSession(base);
    model.push(textReply("Hello."));
    await sseReader(await post(base, `/api/sessions/${id}/messages`, { content: "hi" })).all();
    const body = model.requests.at(-1)!.body as {
      messages: { role: string; content: string }[];
      tools: { function: { name: string } }[];
    };
    expect(body.messages[0]).toMatchObject({ role: "system" });
    expect(body.messages[0]!.content).toContain("You are tern, a coding agent");
    expect(body.messages[0]!.content).toContain(`Your workspace is ${work}`);
    expect(body.tools.map((tool) => tool.function.name)).toEqual(
      expect.arrayContaining(["read", "write", "edit", "bash"]),
    );
  });

  it("synthesizes the answer when asked (--answer-mode synthesize)", async () => {
    const { base, work } = await served(["--answer-mode", "synthesize"]);
    writeFileSync(join(work, "a.txt"), "alpha");
    const id = await newSession(base);
    model.push(
      toolReply([{ id: "r1", name: "read", args: { path: "a.txt" } }]),
      textReply("draft"),
      textReply("The file says alpha."),
    );
    const frames = await sseReader(
      await post(base, `/api/sessions/${id}/messages`, { content: "read a" }),
    ).all();
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { answer: "The file says alpha." } });
    expect(frames.filter((f) => f.event === "answer").map((f) => f.data.status)).toContain("delta");
  });

  it("says a rate-limited model call is retried: a retrying phase frame, then the answer", async () => {
    const { base } = await served();
    const id = await newSession(base);
    model.push({
      kind: "json",
      status: 429,
      headers: { "retry-after-ms": "20" },
      body: { error: { message: "Rate limit reached", type: "rate_limit_error" } },
    });
    model.push(textReply("Fine."));
    const frames = await sseReader(await post(base, `/api/sessions/${id}/messages`, { content: "hi" })).all();
    expect(frames.find((f) => f.event === "phase" && f.data.phase === "retrying")?.data).toMatchObject({
      phase: "retrying",
      purpose: "turn",
      attempt: 2,
      max_attempts: 4,
      delay_ms: 20,
      error_kind: "rate_limit",
      status: 429,
    });
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { answer: "Fine." } });
  });

  it("compacts a conversation that outgrows the model's window: a compact frame", async () => {
    const home = tempDir();
    const work = tempDir();
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        models: [{ id: "tiny", provider: "local", contextWindow: 3000, maxOutputTokens: 500 }],
      }),
    );
    const { base } = await startServe([
      ...["--port", "0", "--base-url", model.providerUrl, "--provider", "local", "--model", "tiny"],
      ...["--home", home, "--cwd", work, "--tools", "none"],
    ]);
    const id = await newSession(base);
    const long = "All work and no play makes a long reply. ".repeat(120);
    model.push(
      textReply(long),
      textReply(long),
      textReply("Summary of the talk so far."),
      textReply("Short."),
    );
    await sseReader(await post(base, `/api/sessions/${id}/messages`, { content: "one" })).all();
    await sseReader(await post(base, `/api/sessions/${id}/messages`, { content: "two" })).all();
    const frames = await sseReader(
      await post(base, `/api/sessions/${id}/messages`, { content: "three" }),
    ).all();
    expect(frames.some((frame) => frame.event === "compact")).toBe(true);
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { answer: "Short." } });
  });
});

describe("over JSON-RPC with the official Copilot SDK", () => {
  it("asks permission through onPermissionRequest and ends an autopilot run with session.task_complete", async () => {
    const home = tempDir();
    const work = tempDir();
    const { rpcPort } = await startServe([
      ...["--rpc-port", "0", "--base-url", model.providerUrl, "--model", "scripted"],
      ...["--home", home, "--cwd", work, "--autopilot"],
    ]);
    const client = new CopilotClient({ connection: RuntimeConnection.forUri(`127.0.0.1:${rpcPort}`) });
    try {
      const asked: unknown[] = [];
      const session = await client.createSession({
        onPermissionRequest: (request) => {
          asked.push(request);
          return { kind: "approve-once" };
        },
      });
      const events: SessionEvent[] = [];
      session.on((event) => events.push(event));
      model.push(
        toolReply([{ id: "w4", name: "write", args: { path: "done.txt", content: "ok" } }]),
        toolReply([{ id: "t1", name: "task_complete", args: { summary: "Wrote done.txt." } }]),
      );
      await session.sendAndWait({ prompt: "write done.txt, then finish" }, 15_000);
      expect(asked).toEqual([expect.objectContaining({ kind: "write" })]);
      expect(readFileSync(join(work, "done.txt"), "utf8")).toBe("ok");
      const complete = events.find((event) => event.type === "session.task_complete");
      expect(complete?.data).toMatchObject({ summary: "Wrote done.txt." });
    } finally {
      await client.stop();
    }
  });

  it("shows a compaction as Copilot compaction events", async () => {
    const home = tempDir();
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        models: [{ id: "tiny", provider: "local", contextWindow: 3000, maxOutputTokens: 500 }],
      }),
    );
    const { rpcPort } = await startServe([
      ...["--rpc-port", "0", "--base-url", model.providerUrl, "--provider", "local", "--model", "tiny"],
      ...["--home", home, "--cwd", tempDir(), "--tools", "none"],
    ]);
    const client = new CopilotClient({ connection: RuntimeConnection.forUri(`127.0.0.1:${rpcPort}`) });
    try {
      const session = await client.createSession({ onPermissionRequest: () => ({ kind: "approve-once" }) });
      const events: SessionEvent[] = [];
      session.on((event) => events.push(event));
      const long = "All work and no play makes a long reply. ".repeat(120);
      model.push(textReply(long), textReply(long), textReply("Summary so far."), textReply("Short."));
      for (const prompt of ["one", "two", "three"]) await session.sendAndWait({ prompt }, 15_000);
      const types = events.map((event) => event.type);
      expect(types).toContain("session.compaction_start");
      expect(types).toContain("session.compaction_complete");
    } finally {
      await client.stop();
    }
  });
});

describe("checkpoints of served sessions", () => {
  it("snapshots a served session's edits, so tern sessions rewind puts them back", async () => {
    const { base, work, home, proc } = await served(["--mode", "accept-edits"]);
    writeFileSync(join(work, "plan.txt"), "original\n");
    const id = await newSession(base);
    model.push(
      toolReply([{ id: "c1", name: "write", args: { path: "plan.txt", content: "rewritten\n" } }]),
      textReply("Rewrote it."),
    );
    const frames = await sseReader(
      await post(base, `/api/sessions/${id}/messages`, { content: "rewrite" }),
    ).all();
    expect(frames.at(-1)).toMatchObject({ data: { answer: "Rewrote it." } });
    expect(readFileSync(join(work, "plan.txt"), "utf8")).toBe("rewritten\n");
    proc.child.kill();
    await proc.done;
    const rewound = await runTern(["sessions", "rewind", id, "--code"], {
      env: ternEnv({ TERN_HOME: home }),
    });
    expect(rewound.code, rewound.stdout + rewound.stderr).toBe(0);
    expect(rewound.stdout).toContain('code: restored 1 file to before turn 1 ("rewrite"): plan.txt');
    expect(readFileSync(join(work, "plan.txt"), "utf8")).toBe("original\n");
  });
});
