import { appendFileSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileSessionStore } from "../src/file-store.js";
import { INDEX_FILE } from "../src/session-index.js";
import { summarize } from "../src/summary.js";
import { assistant, deterministic, tempHome, user } from "./support/helpers.js";

// The session index: `list` reads a file only when it is new or changed, folds an appended
// tail into what it knew, and treats its own index file as an untrusted cache.

let home: ReturnType<typeof tempHome>;
let store: FileSessionStore;

beforeEach(() => {
  home = tempHome();
  store = new FileSessionStore({ home: home.home, ...deterministic() });
});
afterEach(() => home.cleanup());

async function twoTurnSession(cwd = "/a") {
  const session = await store.create({ cwd });
  session.appendMessage(user("first question"));
  session.appendMessage(assistant("answer", [], 0.25));
  await session.close();
  return session.path!;
}

describe("session index", () => {
  it("does not read an unchanged file again", async () => {
    const path = await twoTurnSession();
    const [before] = await store.list();
    expect(before).toEqual(summarize(path));
    expect(readFileSync(join(dirname(path), INDEX_FILE), "utf8")).toContain('"messageCount":2');
    // Same size and mtime, different bytes: only a reader of the file would notice.
    const { mtime } = statSync(path);
    writeFileSync(path, readFileSync(path, "utf8").replace("first question", "FIRST QUESTION"));
    utimesSync(path, mtime, mtime);
    expect((await store.list())[0]).toEqual(before);
  });

  it("keeps its file ASCII, and titles in any script come back from it unchanged", async () => {
    const session = await store.create({ cwd: "/a" });
    const title = `Grüße, 你好, 🦜 ${"long ".repeat(30)}`;
    session.appendMessage(user(title));
    await session.close();
    const [fromFile] = await store.list();
    const index = readFileSync(join(dirname(session.path!), INDEX_FILE), "utf8");
    expect([...index].every((char) => char.charCodeAt(0) < 0x80)).toBe(true);
    const [fromIndex] = await new FileSessionStore({ home: home.home, ...deterministic() }).list();
    expect(fromIndex).toEqual(fromFile);
    expect(fromIndex!.title).toMatch(/^Grüße, 你好, 🦜 long .*…$/);
  });

  it("folds lines appended since the last list, giving what a full read gives", async () => {
    const path = await twoTurnSession();
    await store.list();
    const session = await store.open(before(path));
    session.appendMessage(user("more"));
    session.appendMessage(assistant("more answer", [], 0.5));
    session.setName("Renamed");
    await session.close();
    const [after] = await store.list();
    expect(after).toEqual(summarize(path));
    expect(after).toMatchObject({ title: "Renamed", messageCount: 4, cost: 0.75 });
  });

  it("rebuilds a file that shrank or was rewritten, and reports one that became unreadable", async () => {
    const path = await twoTurnSession();
    await store.list();
    const lines = readFileSync(path, "utf8").split("\n");
    writeFileSync(path, `${lines.slice(0, 2).join("\n")}\n`);
    expect((await store.list())[0]).toEqual(summarize(path));
    appendFileSync(path, "not json at all\n{}\n");
    const [broken] = await store.list();
    expect(broken?.error).toMatch(/:3: corrupt session line/);
    expect(broken).toEqual(summarize(path));
  });

  it("ignores a corrupt or hostile index and rewrites it", async () => {
    const path = await twoTurnSession();
    const index = join(dirname(path), INDEX_FILE);
    const truth = summarize(path);
    for (const junk of [
      "{not json",
      JSON.stringify({ version: 2, files: { "s1.jsonl": { size: "big", mtimeMs: 1, offset: 0 } } }),
      JSON.stringify({
        version: 2,
        files: {
          "s1.jsonl": {
            ...statOf(path),
            offset: 1,
            header: { id: "s1", cwd: "/a", created: "x" },
            state: { messageCount: "lots", cost: 0 },
          },
        },
      }),
      JSON.stringify({ version: 99, files: {} }),
    ]) {
      writeFileSync(index, junk);
      expect(await store.list()).toEqual([truth]);
      expect(JSON.parse(readFileSync(index, "utf8"))).toMatchObject({ version: 2 });
    }
  });

  it("drops deleted sessions from the index", async () => {
    const path = await twoTurnSession();
    await store.delete((await store.list())[0]!.id);
    expect(await store.list()).toEqual([]);
    expect(readFileSync(join(dirname(path), INDEX_FILE), "utf8")).not.toContain("s1.jsonl");
  });
});

function statOf(path: string) {
  const { size, mtimeMs } = statSync(path);
  return { size, mtimeMs };
}

function before(path: string): string {
  return JSON.parse(readFileSync(path, "utf8").split("\n")[0]!).id;
}
