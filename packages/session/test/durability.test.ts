import { appendFileSync, existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SessionError } from "../src/errors.js";
import { FileSessionStore } from "../src/file-store.js";
import { lockPathFor } from "../src/lock.js";
import { assistant, deterministic, textOf, user } from "./support/helpers.js";
import { deadPid, spawnTs, waitForLine } from "./support/spawn.js";
import { storePerTest } from "./support/store-per-test.js";

const fx = storePerTest(deterministic);

async function sessionWithTwoMessages(): Promise<{ id: string; path: string }> {
  const session = await fx.store.create({ cwd: "/p" });
  session.appendMessage(user("q1")); // e1, line 2
  session.appendMessage(assistant("a1")); // e2, line 3
  await session.close();
  return { id: session.id, path: session.path! };
}

function lines(path: string): string[] {
  return readFileSync(path, "utf8").split("\n");
}

async function thrown(promise: Promise<unknown>): Promise<SessionError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(SessionError);
    return error as SessionError;
  }
  throw new Error("expected a SessionError");
}

describe("appends", () => {
  it("each append is one whole line in the file as soon as it returns, in every fsync mode", async () => {
    for (const fsync of ["never", "turn", "always"] as const) {
      const modeStore = new FileSessionStore({ home: fx.home, fsync });
      const session = await modeStore.create({ cwd: `/p/${fsync}` });
      fx.open.push(session);
      session.appendMessage(user("one"));
      expect(lines(session.path!)).toHaveLength(3); // header, entry, "" after the last newline
      session.appendMessage(user("two\nwith a newline inside"));
      const written = lines(session.path!);
      expect(written).toHaveLength(4);
      expect(written[3]).toBe("");
      expect(JSON.parse(written[2]!).message.content).toBe("two\nwith a newline inside");
      await session.flush();
    }
  });
});

describe("encoding", () => {
  it("writes pure ASCII (non-ASCII escaped) and reads every character back", async () => {
    const session = await fx.store.create({ cwd: "/p/项目" });
    fx.open.push(session);
    const text = "日本語のテキスト, emoji 🦜, accents é à, control \u0001, DEL \u007f";
    session.appendMessage(user(text));
    await session.flush();
    const bytes = readFileSync(session.path!);
    expect(bytes.every((byte) => byte < 0x80)).toBe(true);
    expect(bytes.toString()).toContain("\\ud83e\\udd9c"); // the parrot, as a surrogate pair
    const loaded = await fx.store.load(session.id);
    expect(loaded.header.cwd).toBe("/p/项目");
    expect(loaded.buildContext().messages.map(textOf)).toEqual([text]);
  });
});

describe("single writer", () => {
  it("a second writer gets a clear error naming the live writer's pid; the lock goes with close()", async () => {
    const { id, path } = await sessionWithTwoMessages();
    const first = await fx.store.open(id);
    const error = await thrown(fx.store.open(id));
    expect(error.code).toBe("locked");
    expect(error.message).toContain(`pid ${process.pid}`);
    expect(error.message).toContain(path);
    // Reading needs no lock.
    expect((await fx.store.load(id)).entries()).toHaveLength(2);
    // Deleting is refused while it is written.
    expect((await thrown(fx.store.delete(id))).code).toBe("locked");
    await first.close();
    expect(existsSync(lockPathFor(path))).toBe(false);
    const second = await fx.store.open(id);
    await second.close();
    await fx.store.delete(id);
    expect(existsSync(path)).toBe(false);
    expect((await thrown(fx.store.load(id))).code).toBe("not_found");
  });

  it("another live process holds the lock: refused with its pid; once it is killed, the stale lock is taken over", async () => {
    const { id, path } = await sessionWithTwoMessages();
    const holder = spawnTs(fileURLToPath(new URL("./support/hold-lock.ts", import.meta.url)), [path]);
    try {
      await waitForLine(holder, "ready");
      const error = await thrown(fx.store.open(id));
      expect(error.code).toBe("locked");
      expect(error.message).toContain(`pid ${holder.pid}`);
    } finally {
      if (holder.exitCode === null && holder.signalCode === null) {
        const exited = new Promise((resolve) => holder.once("exit", resolve));
        holder.kill("SIGKILL");
        await exited;
      }
    }
    const session = await fx.store.open(id);
    fx.open.push(session);
    const owner = JSON.parse(readFileSync(lockPathFor(path), "utf8"));
    expect(owner).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(session.entries().map((e) => e.type)).toEqual(["message", "message", "custom"]);
  });

  it("takes over a lock left by a dead pid, and an old unreadable lock file", async () => {
    const { id, path } = await sessionWithTwoMessages();
    const pid = await deadPid();
    writeFileSync(
      lockPathFor(path),
      JSON.stringify({ pid, hostname: hostname(), started: "2026-01-01T00:00:00.000Z", nonce: "old" }),
    );
    const session = await fx.store.open(id);
    expect(JSON.parse(readFileSync(lockPathFor(path), "utf8")).pid).toBe(process.pid);
    await session.close();

    writeFileSync(lockPathFor(path), ""); // a crash between creating and filling the lock
    const young = await thrown(fx.store.open(id));
    expect(young.code).toBe("locked");
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPathFor(path), old, old);
    const again = await fx.store.open(id);
    await again.close();
  });
});

describe("loading damaged files", () => {
  it("skips and reports a torn last line; the next append still starts a valid line", async () => {
    const { id, path } = await sessionWithTwoMessages();
    appendFileSync(path, '{"id":"e3","parentId":"e2","timestamp":"2026-01-01T00:00:09.000Z","type":"mess');

    const loaded = await fx.store.load(id);
    expect(loaded.entries().map((e) => e.id)).toEqual(["e1", "e2"]);
    expect(loaded.warnings).toHaveLength(1);
    expect(loaded.warnings[0]!.line).toBe(4);
    expect(loaded.warnings[0]!.message).toContain(`${path}:4: partial last line`);

    const writer = await fx.store.open(id);
    writer.appendMessage(user("q2"));
    await writer.close();
    const text = lines(path);
    expect(text[3]).toMatch(/"type":"mess$/); // the torn bytes stay as evidence
    expect(JSON.parse(text[4]!)).toMatchObject({ type: "recovered", line: 4 });
    expect(JSON.parse(text[5]!)).toMatchObject({ type: "message", parentId: "e2" });

    const reloaded = await fx.store.load(id);
    expect(reloaded.buildContext().messages.map(textOf)).toEqual(["q1", "a1", "q2"]);
    expect(reloaded.warnings.map((w) => w.line)).toEqual([4]);
    expect(reloaded.warnings[0]!.message).toContain("partial line from an earlier crash");
  });

  it("a complete last line without its newline loads fully, and the next append starts a new line", async () => {
    const { id, path } = await sessionWithTwoMessages();
    writeFileSync(path, readFileSync(path, "utf8").replace(/\n$/, ""));
    expect((await fx.store.load(id)).warnings).toEqual([]);
    const writer = await fx.store.open(id);
    writer.appendMessage(user("q2"));
    await writer.close();
    expect((await fx.store.load(id)).buildContext().messages.map(textOf)).toEqual(["q1", "a1", "q2"]);
  });

  it("a corrupt line in the middle is an error naming the file and line, never a silent drop", async () => {
    const { id, path } = await sessionWithTwoMessages();
    const text = lines(path);
    text[1] = '{"id":"e1","parentId":null,"type":"message","message":{"role":"us'; // line 2
    writeFileSync(path, text.join("\n"));

    const error = await thrown(fx.store.load(id));
    expect(error.code).toBe("corrupt");
    expect(error.file).toBe(path);
    expect(error.line).toBe(2);
    expect(error.message).toContain(`${path}:2:`);
    // It says what to do, and the file is left as it was.
    expect(error.message).toMatch(/the file was not changed .* move line 2 out of the file/);
    expect(readFileSync(path, "utf8")).toBe(text.join("\n"));
    // Opening for writing fails the same way and leaves no lock behind.
    expect((await thrown(fx.store.open(id))).line).toBe(2);
    expect(existsSync(lockPathFor(path))).toBe(false);
    // list still shows the session, with the error.
    const [summary] = await fx.store.list();
    expect(summary).toMatchObject({ id, path });
    expect(summary!.error).toContain(`${path}:2:`);
  });

  it("an entry whose parent is unknown, a broken event sequence and a newer format are errors too", async () => {
    const { id, path } = await sessionWithTwoMessages();
    const original = readFileSync(path, "utf8");
    const orphan =
      '{"id":"e9","parentId":"nope","timestamp":"2026-01-01T00:00:09.000Z","type":"custom","customType":"x"}';
    writeFileSync(path, `${original}${orphan}\n`);
    expect((await thrown(fx.store.load(id))).message).toContain(
      `${path}:4: corrupt session line: parent "nope"`,
    );

    writeFileSync(
      path,
      `${original}{"type":"event","seq":2,"timestamp":"x","event":{"type":"turn_start"}}\n`,
    );
    expect((await thrown(fx.store.load(id))).message).toContain("event seq 2, expected 1");

    writeFileSync(path, original.replace('"version":1', '"version":99'));
    expect((await thrown(fx.store.load(id))).code).toBe("format");
  });
});
