import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { agentLoop, runAgentLoop } from "@tern/agent";
import { createFaux, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it, vi } from "vitest";
import type { SessionError } from "../src/errors.js";
import { encodeCwd, FileSessionStore } from "../src/file-store.js";
import { createSessionAgent } from "../src/persist-agent.js";
import { SessionRecorder } from "../src/recorder.js";
import { INTERRUPTED_RESULT } from "../src/repair.js";
import { resumeSession } from "../src/resume.js";
import { slowEcho, transcriptProblems } from "./support/agent.js";
import { assistant, call, deterministic, result, textOf, user } from "./support/helpers.js";
import { storePerTest } from "./support/store-per-test.js";
import { STORE_KINDS, storeOfKind } from "./support/stores.js";

const files = storePerTest(deterministic);

describe("FileSessionStore", () => {
  it("stores files under <home>/sessions/<encoded cwd>/<id>.jsonl, ~/.tern by default whatever TERN_HOME says", async () => {
    const session = await files.store.create({ cwd: "/work/my project" });
    files.open.push(session);
    expect(encodeCwd("/work/my project")).toMatch(/^work-my-project-[0-9a-f]{8}$/);
    expect(session.path).toBe(join(files.home, "sessions", encodeCwd("/work/my project"), "s1.jsonl"));
    // Different directories never share a folder, even when their readable parts match.
    expect(encodeCwd("/a/b")).not.toBe(encodeCwd("/a-b"));

    // TERN_HOME is the CLI's to map onto `home`: the library reads no environment.
    vi.stubEnv("TERN_HOME", join(files.home, "elsewhere"));
    try {
      expect(new FileSessionStore().root).toBe(join(homedir(), ".tern", "sessions"));
    } finally {
      vi.unstubAllEnvs();
    }
    await expect(files.store.load("../../etc/passwd")).rejects.toThrow(/invalid session id/);
  });
});

async function thrown(promise: Promise<unknown>): Promise<SessionError> {
  try {
    await promise;
  } catch (error) {
    return error as SessionError;
  }
  throw new Error("expected a rejection");
}

// The same behaviour from every SessionStore: the JSONL files and PostgreSQL.
describe.each(STORE_KINDS)("the %s store", (kind) => {
  const fx = storeOfKind(kind, deterministic);

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
      ...(first.path ? { path: first.path } : {}),
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
    if (second.path) expect(existsSync(second.path)).toBe(false);
    expect((await thrown(fx.store.load("s2"))).code).toBe("not_found");
    expect((await thrown(fx.store.open("nope"))).code).toBe("not_found");
    expect((await thrown(fx.store.load("../../etc/passwd"))).code).toBe("invalid");
  });

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
    // The event log's sequence numbers are gap-free, and a client resumes after any of them.
    expect(loaded.eventsAfter(0).map((e) => e.seq)).toEqual(types.map((_, i) => i + 1));
    expect(loaded.eventsAfter(3).map((e) => e.seq)[0]).toBe(4);
  });

  it("one writer at a time: a second open is refused while the first holds the session, and close() frees it", async () => {
    const session = await fx.store.create({ cwd: "/w" });
    session.appendMessage(user("mine"));
    await session.flush();
    const other = fx.another(deterministic());
    expect((await thrown(other.open(session.id))).code).toBe("locked");
    expect((await thrown(other.delete(session.id))).code).toBe("locked");
    // Reading needs no lock.
    expect((await other.load(session.id)).entries()).toHaveLength(1);
    await session.close();
    const second = await other.open(session.id);
    fx.open.push(second);
    second.appendMessage(assistant("theirs"));
    await second.flush();
    expect((await fx.store.load(session.id)).buildContext().messages.map(textOf)).toEqual(["mine", "theirs"]);
  });

  it("branches, labels and forks come back the same from a reload", async () => {
    const source = await fx.store.create({ cwd: "/t" });
    fx.open.push(source);
    source.appendMessage(user("q1")); // e1
    source.appendMessage(assistant("a1")); // e2
    source.appendMessage(user("q2")); // e3
    source.appendMessage(assistant("a2")); // e4
    source.branch("e2");
    source.setLabel("e1", "start"); // e5, on a side branch of e2
    source.setLabel("e2", "checkpoint"); // e6
    source.setLabel("e2", null); // e7
    await source.flush();
    const loaded = await fx.store.load(source.id);
    expect([...loaded.labels()]).toEqual([["e1", "start"]]);
    expect(loaded.pathTo("e4").map((e) => e.id)).toEqual(["e1", "e2", "e3", "e4"]);

    const fork = await fx.store.fork(source.id, { entryId: "e2" });
    fx.open.push(fork);
    expect(fork.header.parentSession).toMatchObject({ id: source.id, entryId: "e2" });
    expect(fork.entries().map((e) => [e.id, e.parentId, e.type])).toEqual([
      ["e1", null, "message"],
      ["e2", "e1", "message"],
      ["e8", "e2", "label"],
    ]);
    fork.appendMessage(user("forked question"));
    await fork.flush();
    const reloaded = await fx.store.load(fork.id);
    expect(reloaded.buildContext().messages.map(textOf)).toEqual(["q1", "a1", "forked question"]);
    expect(reloaded.getLabel("e1")).toBe("start");
    expect((await fx.store.load(source.id)).entries()).toHaveLength(7);
    await expect(fx.store.fork(source.id, { entryId: "zzz" })).rejects.toThrow(/no entry "zzz"/);
  });

  it("resume repairs an interrupted run: each dangling tool call gets the interrupted result, then the run completes", async () => {
    const crashed = await fx.store.create({ cwd: "/p" });
    crashed.appendEvent({ type: "agent_start", runId: "r1", timestamp: 1 });
    crashed.appendMessage(user("do two things"));
    crashed.appendMessage(assistant("", [call("c1", "echo"), call("c2", "echo")]));
    crashed.appendMessage(result("c1", "echo: one", "echo"));
    await crashed.close();

    const resumed = await resumeSession(fx.store, crashed.id);
    fx.open.push(resumed.session);
    expect(resumed.needsContinue).toBe(true);
    expect(resumed.repair.appended.map((r) => [r.toolCallId, textOf(r)])).toEqual([
      ["c2", INTERRUPTED_RESULT],
    ]);
    expect(resumed.lastEventSeq).toBe(1);
    const faux = createFaux({ replies: ["recovered and done"] });
    const { agent } = createSessionAgent(resumed.session, { model: faux.model, tools: [slowEcho()] });
    expect((await agent.continue()).stopReason).toBe("stop");
    expect(transcriptProblems(agent.state.messages)).toEqual([]);
    const again = await fx.store.load(crashed.id);
    expect(again.buildContext().messages.map(textOf)).toEqual([
      "do two things",
      "call:echo|call:echo",
      "echo: one",
      INTERRUPTED_RESULT,
      "recovered and done",
    ]);
    // A second resume finds nothing to repair.
    await resumed.session.close();
    const twice = await resumeSession(fx.store, crashed.id);
    fx.open.push(twice.session);
    expect(twice.repair.appended).toEqual([]);
    expect(twice.needsContinue).toBe(false);
  });
});
