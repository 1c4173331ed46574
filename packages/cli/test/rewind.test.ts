// `tern sessions rewind` on sessions made by real runs: the scripted model edits, writes and runs
// bash in a real workspace; rewinding puts the files (binary, deleted, created) and the
// conversation back, and refuses a file edited outside tern meanwhile unless --force.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { wireMessages } from "@tern/ai/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

const BINARY = Buffer.from([0, 159, 146, 150, 0, 255, 10]);

describe("tern sessions rewind", () => {
  it("restores code and conversation to an earlier turn, refusing outside edits unless forced", async () => {
    const work = tempDir();
    writeFileSync(join(work, "a.txt"), "one\n");
    writeFileSync(join(work, "logo.bin"), BINARY);
    writeFileSync(join(work, "old.txt"), "old\n");
    writeFileSync(join(work, "notes.txt"), "mine\n");
    const server = await startScriptedModel([
      toolReply([{ name: "edit", args: { path: "a.txt", old_string: "one", new_string: "two" } }]),
      textReply("Edited."),
      toolReply([
        { name: "write", args: { path: "new.txt", content: "new\n" } },
        { name: "write", args: { path: "notes.txt", content: "by tern\n" } },
        { name: "bash", args: { command: "printf 'text now' > logo.bin && rm old.txt" } },
      ]),
      textReply("Rewrote things."),
      textReply("Rewrote things, checked."), // after the completion check
      textReply("Back at turn two."),
    ]);
    const env = scriptedModelEnv(server);
    const flags = ["--mode", "bypass", "--sandbox", "off"];
    const first = await runTern(["run", ...flags, "change a"], { env, cwd: work });
    expect(first.code, first.stderr).toBe(0);
    const listed = JSON.parse((await runTern(["sessions", "ls", "--json"], { env, cwd: work })).stdout);
    const id = (listed[0] as { id: string }).id.slice(0, 8);
    const second = await runTern(["run", ...flags, "--session", id, "rewrite things"], { env, cwd: work });
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(join(work, "logo.bin"), "utf8")).toBe("text now");
    expect(existsSync(join(work, "old.txt"))).toBe(false);

    // Someone edits notes.txt by hand after tern did.
    writeFileSync(join(work, "notes.txt"), "edited by hand\n");
    const refused = await runTern(["sessions", "rewind", id, "--to", "2"], { env, cwd: work });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("refused: changed outside tern since tern last touched it: notes.txt");
    expect(existsSync(join(work, "new.txt"))).toBe(true);

    const forced = await runTern(["sessions", "rewind", id, "--to", "2", "--force"], { env, cwd: work });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/code: restored 4 files to before turn 2 \("rewrite things"\)/);
    expect(forced.stdout).toContain("new.txt (deleted: it was created since)");
    expect(forced.stdout).toContain("old.txt (recreated)");
    expect(forced.stdout).toContain("conversation: back to before turn 2");
    expect(readFileSync(join(work, "logo.bin"))).toEqual(BINARY);
    expect(readFileSync(join(work, "old.txt"), "utf8")).toBe("old\n");
    expect(readFileSync(join(work, "notes.txt"), "utf8")).toBe("mine\n");
    expect(existsSync(join(work, "new.txt"))).toBe(false);
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("two\n");

    // The next prompt continues from before turn 2: the model sees turn 1 only.
    const third = await runTern(["run", ...flags, "--session", id, "again"], { env, cwd: work });
    expect(third.code, third.stderr).toBe(0);
    const sent = wireMessages(server.requests.at(-1)!.body).filter((m) => m.role !== "system");
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);

    // Code only, back to before turn 1; the conversation stays.
    const code = await runTern(["sessions", "rewind", id, "--to", "1", "--code"], { env, cwd: work });
    expect(code.code, code.stdout + code.stderr).toBe(0);
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("one\n");
    expect(code.stdout).not.toContain("conversation:");

    const bad = await runTern(["sessions", "rewind", id, "--to", "9"], { env, cwd: work });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--to must be a turn number from 1 to 2");
    const both = await runTern(["sessions", "rewind", id, "--code", "--conversation"], { env, cwd: work });
    expect(both.code).toBe(2);
  });
});
