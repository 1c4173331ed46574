import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Session } from "../src/session.js";
import { assistant, call, deterministic, result, textOf, user } from "./support/helpers.js";
import { storePerTest } from "./support/store-per-test.js";

const fx = storePerTest(deterministic);

async function newSession(): Promise<Session> {
  const session = await fx.store.create({ cwd: "/projects/demo" });
  fx.open.push(session);
  return session;
}

function texts(session: Session, leaf?: string | null): string[] {
  return session.buildContext(leaf).messages.map(textOf);
}

describe("tree", () => {
  it("chains entries by parentId and rebuilds the same tree and context from the file", async () => {
    const session = await newSession();
    session.appendMessage(user("q1"));
    session.appendMessage(assistant("a1"));
    session.appendMessage(user("q2"));
    session.appendMessage(assistant("a2"));
    expect(session.entries().map((e) => [e.id, e.parentId, e.type])).toEqual([
      ["e1", null, "message"],
      ["e2", "e1", "message"],
      ["e3", "e2", "message"],
      ["e4", "e3", "message"],
    ]);
    expect(session.leafId).toBe("e4");
    expect(texts(session)).toEqual(["q1", "a1", "q2", "a2"]);

    const lines = readFileSync(session.path!, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(5);
    expect(JSON.parse(lines[0]!)).toEqual({
      type: "session",
      version: 1,
      id: "s1",
      created: "2026-01-01T00:00:01.000Z",
      cwd: "/projects/demo",
    });
    expect(JSON.parse(lines[1]!)).toEqual({
      id: "e1",
      parentId: null,
      timestamp: "2026-01-01T00:00:02.000Z",
      type: "message",
      message: { role: "user", content: "q1", timestamp: 1 },
    });

    const loaded = await fx.store.load("s1");
    expect(loaded.readOnly).toBe(true);
    expect(loaded.entries()).toEqual(session.entries());
    expect(loaded.leafId).toBe("e4");
    expect(loaded.buildContext()).toEqual(session.buildContext());
  });

  it("branches: moving the leaf makes the next entry a sibling; each leaf has its own context", async () => {
    const session = await newSession();
    session.appendMessage(user("q1")); // e1
    session.appendMessage(assistant("a1")); // e2
    session.appendMessage(user("q2")); // e3
    session.appendMessage(assistant("a2")); // e4
    session.branch("e2");
    expect(session.leafId).toBe("e2");
    session.appendMessage(user("q2 again")); // e5
    session.appendMessage(assistant("a2 again")); // e6
    expect(session.getEntry("e5")?.parentId).toBe("e2");
    expect(session.children("e2").map((e) => e.id)).toEqual(["e3", "e5"]);
    expect(texts(session)).toEqual(["q1", "a1", "q2 again", "a2 again"]);
    expect(texts(session, "e4")).toEqual(["q1", "a1", "q2", "a2"]);
    expect(session.pathTo("e6").map((e) => e.id)).toEqual(["e1", "e2", "e5", "e6"]);

    // A branch summary records what the abandoned branch did and is sent to the model.
    const summary = session.branchWithSummary("e2", "tried q2 twice");
    expect(summary).toMatchObject({ id: "e7", parentId: "e2", type: "branch_summary", fromId: "e6" });
    expect(texts(session)).toEqual([
      "q1",
      "a1",
      "Summary of a branch this conversation left and came back from:\n\ntried q2 twice",
    ]);

    // Branching to null starts a new root.
    session.branch(null);
    session.appendMessage(user("fresh"));
    expect(session.getEntry("e8")?.parentId).toBeNull();
    expect(texts(session)).toEqual(["fresh"]);

    expect(() => session.branch("nope")).toThrow(/no entry "nope"/);

    const loaded = await fx.store.load(session.id);
    expect(loaded.leafId).toBe("e8");
    expect(texts(loaded, "e6")).toEqual(["q1", "a1", "q2 again", "a2 again"]);
    expect(loaded.children(null).map((e) => e.id)).toEqual(["e1", "e8"]);
  });

  it("labels name entries, can be moved and cleared, survive a reload, and never enter the context", async () => {
    const session = await newSession();
    session.appendMessage(user("q1")); // e1
    session.appendMessage(assistant("a1")); // e2
    session.setLabel("e1", "start"); // e3
    session.setLabel("e2", "checkpoint"); // e4
    expect(session.getLabel("e1")).toBe("start");
    expect(session.findLabel("checkpoint")?.id).toBe("e2");
    session.setLabel("e1", "beginning"); // e5
    session.setLabel("e2", null); // e6
    expect(session.getLabel("e1")).toBe("beginning");
    expect(session.getLabel("e2")).toBeUndefined();
    expect(session.findLabel("checkpoint")).toBeUndefined();
    expect(texts(session)).toEqual(["q1", "a1"]);
    expect(() => session.setLabel("missing", "x")).toThrow(/no entry "missing"/);

    const loaded = await fx.store.load(session.id);
    expect([...loaded.labels()]).toEqual([["e1", "beginning"]]);
  });

  it("fork starts a new file pointing to its parent, holding the path up to the chosen entry", async () => {
    const source = await newSession();
    source.appendMessage(user("q1")); // e1
    source.appendMessage(assistant("a1")); // e2
    source.appendMessage(user("q2")); // e3
    source.appendMessage(assistant("a2")); // e4
    source.branch("e2");
    source.setLabel("e1", "start"); // e5, on a side branch of e2
    await source.flush();

    const fork = await fx.store.fork(source.id, { entryId: "e2" });
    fx.open.push(fork);
    expect(fork.id).toBe("s2");
    expect(fork.header.parentSession).toEqual({ id: "s1", path: source.path, entryId: "e2" });
    expect(fork.path).not.toBe(source.path);
    // The path is copied with its ids, and the label set on the other branch is carried over.
    expect(fork.entries().map((e) => [e.id, e.parentId, e.type])).toEqual([
      ["e1", null, "message"],
      ["e2", "e1", "message"],
      ["e6", "e2", "label"],
    ]);
    expect(fork.getLabel("e1")).toBe("start");
    expect(texts(fork)).toEqual(["q1", "a1"]);

    fork.appendMessage(user("forked question"));
    expect(texts(fork)).toEqual(["q1", "a1", "forked question"]);
    // The parent is untouched.
    const parent = await fx.store.load("s1");
    expect(parent.entries()).toHaveLength(5);
    expect(texts(parent, "e4")).toEqual(["q1", "a1", "q2", "a2"]);

    await expect(fx.store.fork("s1", { entryId: "zzz" })).rejects.toThrow(/no entry "zzz"/);
  });

  it("compaction entries rebuild the same context: summary, pinned entries, then the kept part", async () => {
    const session = await newSession();
    session.appendMessage(user("the goal")); // e1
    session.appendMessage(assistant("", [call("c1")])); // e2
    session.appendMessage(result("c1", "big output")); // e3
    session.appendMessage(assistant("a1")); // e4
    session.appendMessage(user("q2")); // e5
    session.appendMessage(assistant("a2")); // e6
    const compaction = session.appendCompaction({
      summary: "did c1, answered a1",
      firstKeptEntryId: "e5",
      tokensBefore: 1234,
      tokensAfter: 300,
      pinnedEntryIds: ["e1"],
    }); // e7
    session.appendMessage(user("q3")); // e8
    expect(compaction).toMatchObject({
      id: "e7",
      parentId: "e6",
      firstKeptEntryId: "e5",
      tokensBefore: 1234,
    });
    const expected = [
      "the goal",
      "The conversation before this point was compacted into this summary:\n\ndid c1, answered a1",
      "q2",
      "a2",
      "q3",
    ];
    expect(texts(session)).toEqual(expected);
    expect(session.buildContext().entryIds).toEqual(["e1", "e7", "e5", "e6", "e8"]);
    // Before the compaction (another leaf on the same path) the full history is still there.
    expect(texts(session, "e6")).toEqual(["the goal", "call:read", "big output", "a1", "q2", "a2"]);

    // A second compaction supersedes the first, and may carry the exact replacement messages.
    session.appendMessage(assistant("a3")); // e9
    session.appendCompaction({
      summary: "work card v2",
      firstKeptEntryId: "e8",
      tokensBefore: 900,
      messages: [user("<work-card>v2</work-card>", 42)],
    }); // e10
    expect(texts(session)).toEqual(["<work-card>v2</work-card>", "q3", "a3"]);
    // Keeping nothing is allowed.
    session.appendCompaction({ summary: "all gone", firstKeptEntryId: null, tokensBefore: 50 }); // e11
    expect(texts(session)).toEqual([
      "The conversation before this point was compacted into this summary:\n\nall gone",
    ]);
    expect(() =>
      session.appendCompaction({ summary: "x", firstKeptEntryId: "nope", tokensBefore: 1 }),
    ).toThrow(/not on the path/);

    const loaded = await fx.store.load(session.id);
    expect(loaded.buildContext()).toEqual(session.buildContext());
    expect(loaded.buildContext("e8")).toEqual(session.buildContext("e8"));
    expect(loaded.buildContext("e9").messages.map(textOf)).toEqual([...expected, "a3"]);
  });

  it("tracks model and thinking level on the path; custom entries stay out of the context", async () => {
    const session = await newSession();
    expect(session.buildContext()).toEqual({ messages: [], entryIds: [], thinkingLevel: "off" });
    session.appendModelChange("openai", "gpt-x"); // e1
    session.appendThinkingLevelChange("high"); // e2
    session.appendMessage(user("hi")); // e3
    session.appendCustom("ui.note", { pinned: true }); // e4
    session.appendCustomMessage("ext.context", "extra context for the model"); // e5
    expect(session.buildContext()).toMatchObject({
      model: { provider: "openai", modelId: "gpt-x" },
      thinkingLevel: "high",
    });
    expect(texts(session)).toEqual(["hi", "extra context for the model"]);
    // An assistant message's model is the newest model on the path.
    session.appendMessage(assistant("hello")); // e6
    expect(session.buildContext().model).toEqual({ provider: "faux", modelId: "faux-1" });
    expect(session.buildContext("e5").model).toEqual({ provider: "openai", modelId: "gpt-x" });
    session.setName("My session");
    session.setName("Renamed");
    expect(session.name).toBe("Renamed");
  });
});
