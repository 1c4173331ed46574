import { existsSync } from "node:fs";
import { join } from "node:path";
import { agentLoop, runAgentLoop } from "@tern/agent";
import { createFaux, fauxToolCall } from "@tern/ai";
import { describe, expect, it } from "vitest";
import { encodeCwd, FileSessionStore } from "../src/file-store.js";
import { SessionRecorder } from "../src/recorder.js";
import { slowEcho } from "./support/agent.js";
import { assistant, deterministic, user } from "./support/helpers.js";
import { storePerTest } from "./support/store-per-test.js";

const fx = storePerTest(deterministic);

describe("FileSessionStore", () => {
  it("stores files under <home>/sessions/<encoded cwd>/<id>.jsonl, TERN_HOME by default", async () => {
    const session = await fx.store.create({ cwd: "/work/my project" });
    fx.open.push(session);
    expect(encodeCwd("/work/my project")).toMatch(/^work-my-project-[0-9a-f]{8}$/);
    expect(session.path).toBe(join(fx.home, "sessions", encodeCwd("/work/my project"), "s1.jsonl"));
    // Different directories never share a folder, even when their readable parts match.
    expect(encodeCwd("/a/b")).not.toBe(encodeCwd("/a-b"));

    const previous = process.env.TERN_HOME;
    process.env.TERN_HOME = join(fx.home, "elsewhere");
    try {
      expect(new FileSessionStore().root).toBe(join(fx.home, "elsewhere", "sessions"));
    } finally {
      if (previous === undefined) delete process.env.TERN_HOME;
      else process.env.TERN_HOME = previous;
    }
    await expect(fx.store.load("../../etc/passwd")).rejects.toThrow(/invalid session id/);
  });

  it("lists sessions with title, dates, message count and cost, newest first, optionally by cwd", async () => {
    const first = await fx.store.create({ cwd: "/a" }); // s1, created 00:00:01
    first.appendMessage(user(`  a long first question ${"x".repeat(100)}`)); // 00:00:02
    first.appendMessage(assistant("answer", [], 0.25));
    first.appendMessage(user("second"));
    first.appendMessage(assistant("answer 2", [], 0.5)); // 00:00:05
    await first.close();
    const second = await fx.store.create({ cwd: "/b", name: "Named one" }); // s2
    second.appendMessage(user("hello"));
    await second.close();
    await fx.store.create({ cwd: "/a" }).then((s) => s.close()); // s3: empty

    const all = await fx.store.list();
    expect(all.map((s) => s.id)).toEqual(["s3", "s2", "s1"]);
    const s1 = all.find((s) => s.id === "s1")!;
    expect(s1).toEqual({
      id: "s1",
      path: first.path,
      cwd: "/a",
      title: `a long first question ${"x".repeat(57)}…`,
      created: "2026-01-01T00:00:01.000Z",
      updated: "2026-01-01T00:00:05.000Z",
      messageCount: 4,
      cost: 0.75,
    });
    expect(all.find((s) => s.id === "s2")).toMatchObject({ title: "Named one", messageCount: 1, cost: 0 });
    expect(all.find((s) => s.id === "s3")).toMatchObject({ title: "", messageCount: 0 });
    expect((await fx.store.list({ cwd: "/a" })).map((s) => s.id)).toEqual(["s3", "s1"]);
    expect(await fx.store.list({ cwd: "/nowhere" })).toEqual([]);

    await fx.store.delete("s2");
    expect((await fx.store.list()).map((s) => s.id)).toEqual(["s3", "s1"]);
    expect(existsSync(second.path!)).toBe(false);
  });
});

describe("recording raw loop runs", () => {
  it("works as the sink of runAgentLoop and behind a for-await over agentLoop", async () => {
    const session = await fx.store.create({ cwd: "/raw" });
    fx.open.push(session);
    const faux = createFaux({
      replies: [{ content: [fauxToolCall("echo", { text: "x" }, "c1")] }, "ok", "again"],
    });
    const recorder = new SessionRecorder(session, {
      settings: () => ({ model: faux.model, thinkingLevel: "low" }),
    });
    const context = { messages: session.buildContext().messages, tools: [slowEcho()] };
    const first = await runAgentLoop([user("go")], context, { model: faux.model }, recorder.handle);
    expect(first.stopReason).toBe("stop");

    const stream = agentLoop(
      [user("more")],
      { ...context, messages: [...context.messages, ...first.messages] },
      {
        model: faux.model,
      },
    );
    for await (const event of stream) await recorder.handle(event);
    expect(recorder.error).toBeUndefined();

    const loaded = await fx.store.load(session.id);
    expect(loaded.entries().map((e) => (e.type === "message" ? e.message.role : e.type))).toEqual([
      "model_change",
      "thinking_level_change",
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(loaded.buildContext().thinkingLevel).toBe("low");
    const types = loaded.eventsAfter(0).map((e) => e.event.type);
    expect(types.filter((t) => t === "agent_start")).toHaveLength(2);
    expect(types.filter((t) => t === "agent_end")).toHaveLength(2);
    expect(types).not.toContain("message_update");
  });
});
