// The session index's usage folds: `store.usage()` must give what reading every session whole
// gives (the fold of its stored events), after appends, edits, a corrupt index, a missing index,
// and with two processes writing sessions into one directory at once.
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { FileSessionStore } from "../src/file-store.js";
import { INDEX_FILE } from "../src/session-index.js";
import { usageFoldOf } from "../src/usage-fold.js";
import { deterministic, user } from "./support/helpers.js";
import { spawnTs, waitForLine } from "./support/spawn.js";
import { storePerTest } from "./support/store-per-test.js";
import { callEnd } from "./support/usage-events.js";

const t = storePerTest(deterministic);

/** What a full read gives: each session loaded and its stored events folded. */
async function fullRead(target: FileSessionStore) {
  const out: Record<string, unknown> = {};
  for (const { id } of await target.list()) out[id] = usageFoldOf((await target.load(id)).storedEvents());
  return out;
}

async function fromIndex(target: FileSessionStore) {
  const out: Record<string, unknown> = {};
  for (const { summary, usage } of await target.usage()) out[summary.id] = usage;
  return out;
}

async function sessionWithCalls(cwd = "/a") {
  const session = await t.store.create({ cwd });
  session.appendMessage(user("question"));
  session.appendEvent(callEnd("m1", { input: 100, output: 20, cost: 0.5 }));
  session.appendEvent(callEnd("m2", { input: 7, output: 3, cost: 0 }, "title"));
  await session.close();
  return session;
}

describe("usage in the session index", () => {
  it("equals the full read, and folds calls appended after indexing", async () => {
    const { id, path } = await sessionWithCalls();
    await sessionWithCalls("/b");
    expect(await fromIndex(t.store)).toEqual(await fullRead(t.store));
    expect(readFileSync(join(dirname(path!), INDEX_FILE), "utf8")).toContain('"buckets"');
    const again = await t.store.open(id);
    again.appendEvent(callEnd("m1", { input: 1, output: 1, cost: 0.25 }));
    await again.close();
    const [indexed, full] = [await fromIndex(t.store), await fullRead(t.store)];
    expect(indexed).toEqual(full);
    expect((indexed[id] as { buckets: { calls: number }[] }).buckets[0]!.calls).toBe(2);
  });

  it("rebuilds a missing or corrupt index, and re-reads a session file edited after indexing", async () => {
    const { path } = await sessionWithCalls();
    const index = join(dirname(path!), INDEX_FILE);
    const truth = await fullRead(t.store);
    await t.store.usage();
    rmSync(index);
    expect(await fromIndex(t.store)).toEqual(truth);
    writeFileSync(index, '{"version":2,"files":{"torn');
    expect(await fromIndex(t.store)).toEqual(truth);
    const indexed = JSON.parse(readFileSync(index, "utf8"));
    for (const record of Object.values(indexed.files) as { usage: { buckets: unknown } }[])
      record.usage.buckets = "lots";
    writeFileSync(index, JSON.stringify(indexed));
    expect(await fromIndex(t.store)).toEqual(truth);
    // Rewritten in place (shorter: the first two calls' lines gone), the file is read again.
    const lines = readFileSync(path!, "utf8").split("\n");
    writeFileSync(
      path!,
      `${lines.filter((line) => !line.includes('"seq":1,') && !line.includes('"seq":2,')).join("\n")}`,
    );
    appendFileSync(path!, "");
    expect(await fromIndex(t.store)).toEqual(await fullRead(t.store));
    expect(Object.values(await fromIndex(t.store))).toEqual([{ buckets: [] }]);
  });

  it("loses no session when two processes write and index one directory at once", async () => {
    const child = fileURLToPath(new URL("./support/index-writer.ts", import.meta.url));
    const writers = ["x", "y"].map((prefix) => spawnTs(child, [t.home, "/shared", prefix, "12"]));
    await Promise.all(writers.map((writer) => waitForLine(writer, "done")));
    const indexed = await t.store.usage({ cwd: "/shared" });
    expect(indexed).toHaveLength(24);
    expect(await fromIndex(t.store)).toEqual(await fullRead(t.store));
    // And the index each child left names every file: a fresh list reads none of them again.
    const names = Object.keys(
      JSON.parse(readFileSync(join(dirname(indexed[0]!.summary.path!), INDEX_FILE), "utf8")).files,
    );
    expect(names).toHaveLength(24);
  });
});
