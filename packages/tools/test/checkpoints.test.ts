// Checkpoints and rewind in real agent runs: the faux model asks for write, edit and bash calls on
// a real workspace; the checkpoint hooks snapshot; planRewind/applyRewind put the files back.

import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { agentLoop, HookRegistry } from "@tern/agent";
import { createFaux, type FauxReply, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { MAX_SNAPSHOT_FILE_BYTES } from "../src/checkpoints/store.js";
import { applyRewind, CheckpointStore, installCheckpoints, planRewind } from "../src/index.js";
import { tempDir, workspace } from "./support.js";
import { SANDBOX_SKIP_REASON } from "./support-sandbox.js";

const BINARY = Buffer.from([0, 1, 2, 255, 254, 0, 13, 10, 128]);

async function setup(tree: Record<string, string | Buffer>, sandboxed = false) {
  const ws = await workspace(tree, { sandbox: { profile: sandboxed ? "sandbox" : "off" } });
  const store = new CheckpointStore(path.join(await tempDir("tern-ckpt-"), "session-1"));
  const hooks = new HookRegistry();
  let turn = "t1";
  installCheckpoints(hooks, { store, tools: ws.tools, turn: () => turn });
  const runTurn = async (id: string, replies: FauxReply[]) => {
    turn = id;
    const faux = createFaux({ replies: [...replies, "done"] });
    const run = agentLoop(
      [{ role: "user", content: "go", timestamp: 0 }],
      { messages: [], tools: ws.tools },
      { model: faux.model, hooks },
    );
    const result = await run.result();
    expect(result.stopReason).toBe("stop");
  };
  const read = (rel: string) => readFile(path.join(ws.root, rel));
  const exists = (rel: string) =>
    stat(path.join(ws.root, rel)).then(
      () => true,
      () => false,
    );
  return { ws, store, runTurn, read, exists };
}

describe("checkpoints and rewind", () => {
  it("restores edited, binary, deleted and created files to before a turn", async () => {
    const { ws, store, runTurn, read, exists } = await setup({
      "a.txt": "one\n",
      "img.bin": BINARY,
      "gone.txt": "keep me\n",
    });
    await runTurn("t1", [
      { content: [fauxToolCall("edit", { path: "a.txt", old_string: "one", new_string: "two" }, "e1")] },
    ]);
    await runTurn("t2", [
      {
        content: [
          fauxToolCall("write", { path: "new.txt", content: "fresh\n" }, "w1"),
          fauxToolCall(
            "bash",
            { command: "printf 'xx' > img.bin && rm gone.txt && echo made > made.txt" },
            "b1",
          ),
        ],
      },
    ]);
    expect((await read("a.txt")).toString()).toBe("two\n");
    expect(await exists("gone.txt")).toBe(false);
    expect(await exists("made.txt")).toBe(true);

    // Undo turn 2 only: a.txt keeps turn 1's edit.
    const plan = await planRewind(store, ["t2"]);
    expect(plan.conflicts).toEqual([]);
    expect(plan.restore.map((f) => path.relative(ws.root, f.path)).sort()).toEqual([
      "gone.txt",
      "img.bin",
      "made.txt",
      "new.txt",
    ]);
    await applyRewind(store, plan);
    expect(await read("img.bin")).toEqual(BINARY);
    expect((await read("gone.txt")).toString()).toBe("keep me\n");
    expect(await exists("new.txt")).toBe(false);
    expect(await exists("made.txt")).toBe(false);
    expect((await read("a.txt")).toString()).toBe("two\n");

    // Then turn 1 too.
    await applyRewind(store, await planRewind(store, ["t1", "t2"]));
    expect((await read("a.txt")).toString()).toBe("one\n");
    // Nothing left to do.
    const again = await planRewind(store, ["t1", "t2"]);
    expect(again.restore).toEqual([]);
    expect(again.conflicts).toEqual([]);
  });

  it.skipIf(SANDBOX_SKIP_REASON !== undefined)(
    "tracks what a sandboxed bash command changes in the workspace",
    async () => {
      const { store, runTurn, read, exists } = await setup(
        { "keep.txt": "before\n", "drop.bin": BINARY },
        true,
      );
      await runTurn("t1", [
        {
          content: [
            fauxToolCall(
              "bash",
              { command: "echo after > keep.txt && rm drop.bin && printf new > made.txt" },
              "b1",
            ),
          ],
        },
      ]);
      expect((await read("keep.txt")).toString()).toBe("after\n");
      await applyRewind(store, await planRewind(store, ["t1"]));
      expect((await read("keep.txt")).toString()).toBe("before\n");
      expect(await read("drop.bin")).toEqual(BINARY);
      expect(await exists("made.txt")).toBe(false);
    },
  );

  it("refuses a file changed outside tern since, unless forced", async () => {
    const { ws, store, runTurn, read } = await setup({ "a.txt": "one\n", "b.txt": "bee\n" });
    await runTurn("t1", [
      {
        content: [
          fauxToolCall("write", { path: "a.txt", content: "by tern\n" }, "w1"),
          fauxToolCall("write", { path: "b.txt", content: "by tern\n" }, "w2"),
        ],
      },
    ]);
    await writeFile(path.join(ws.root, "a.txt"), "by hand\n");
    const plan = await planRewind(store, ["t1"]);
    expect(plan.conflicts.map((f) => path.basename(f.path))).toEqual(["a.txt"]);
    expect(plan.restore.map((f) => path.basename(f.path))).toEqual(["b.txt"]);
    await applyRewind(store, plan);
    expect((await read("a.txt")).toString()).toBe("by hand\n");
    expect((await read("b.txt")).toString()).toBe("bee\n");

    await applyRewind(store, await planRewind(store, ["t1"]), true);
    expect((await read("a.txt")).toString()).toBe("one\n");
  });

  it("plans in path order, whatever order the tools touched the files in", async () => {
    const { ws, store, runTurn } = await setup({ "z.txt": "zed\n", "c.txt": "cee\n" });
    await runTurn("t1", [
      { content: [fauxToolCall("write", { path: "z.txt", content: "by tern\n" }, "w1")] },
      { content: [fauxToolCall("write", { path: "c.txt", content: "by tern\n" }, "w2")] },
      { content: [fauxToolCall("write", { path: "b.txt", content: "new\n" }, "w3")] },
      { content: [fauxToolCall("write", { path: "a.txt", content: "new\n" }, "w4")] },
    ]);
    await writeFile(path.join(ws.root, "z.txt"), "by hand\n");
    await writeFile(path.join(ws.root, "c.txt"), "by hand\n");
    const plan = await planRewind(store, ["t1"]);
    expect(plan.conflicts.map((f) => path.basename(f.path))).toEqual(["c.txt", "z.txt"]);
    expect(plan.restore.map((f) => path.basename(f.path))).toEqual(["a.txt", "b.txt"]);
  });

  it("records a file too big to snapshot and says it cannot be restored", async () => {
    const big = Buffer.alloc(MAX_SNAPSHOT_FILE_BYTES + 1, 97);
    const { store, runTurn, read } = await setup({ "big.txt": big });
    await runTurn("t1", [{ content: [fauxToolCall("write", { path: "big.txt", content: "small" }, "w1")] }]);
    const plan = await planRewind(store, ["t1"]);
    expect(plan.restore).toEqual([]);
    expect(plan.unrestorable).toHaveLength(1);
    expect(plan.unrestorable[0]!.why).toMatch(/larger than the 10 MiB snapshot limit/);
    expect((await read("big.txt")).toString()).toBe("small");
  });

  it("reports a path it cannot restore and restores the others", async () => {
    const { ws, store, runTurn, read, exists } = await setup({ "a.txt": "one\n" });
    await runTurn("t1", [
      {
        content: [
          fauxToolCall("write", { path: "a.txt", content: "two\n" }, "w1"),
          fauxToolCall("write", { path: "new.txt", content: "x" }, "w2"),
        ],
      },
    ]);
    // Someone replaced the new file by a directory.
    await rm(path.join(ws.root, "new.txt"));
    await mkdir(path.join(ws.root, "new.txt"));
    await writeFile(path.join(ws.root, "new.txt", "inside"), "keep");
    const plan = await planRewind(store, ["t1"]);
    expect(plan.conflicts.map((f) => path.basename(f.path))).toEqual(["new.txt"]);
    const result = await applyRewind(store, plan, true);
    expect(result.restored.map((p) => path.basename(p))).toEqual(["a.txt"]);
    expect(result.failed).toHaveLength(1);
    expect(result.failed[0]!.path).toBe(path.join(ws.root, "new.txt"));
    expect((await read("a.txt")).toString()).toBe("one\n");
    expect(await exists("new.txt/inside")).toBe(true);
  });

  it("skips a torn log line instead of failing", async () => {
    const { store, runTurn, read } = await setup({ "a.txt": "one\n" });
    await runTurn("t1", [{ content: [fauxToolCall("write", { path: "a.txt", content: "two\n" }, "w1")] }]);
    await writeFile(path.join(store.dir, "log.jsonl"), '{"type":"bef', { flag: "a" });
    const plan = await planRewind(store, ["t1"]);
    expect(plan.skippedRecords).toBe(1);
    await applyRewind(store, plan);
    expect((await read("a.txt")).toString()).toBe("one\n");
  });
});
