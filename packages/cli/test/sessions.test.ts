// `tern sessions ls | show | fork | export` and `tern run --session` on sessions made by real runs.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, wireMessages } from "@tern/ai/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

describe("tern sessions", () => {
  it("lists, shows, continues, forks and exports a session", async () => {
    const work = tempDir();
    const server = await startScriptedModel([
      toolReply([{ name: "ls", args: { path: "." } }]),
      textReply("The directory is empty."),
      textReply("You asked about the directory."),
    ]);
    const env = scriptedModelEnv(server);
    const first = await runTern(["run", "What is in this directory?"], { env, cwd: work });
    expect(first.code, first.stderr).toBe(0);

    const listed = await runTern(["sessions", "ls", "--json"], { env, cwd: work });
    const sessions = JSON.parse(listed.stdout) as { id: string; title: string; messageCount: number }[];
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ title: "What is in this directory?", messageCount: 4 });
    const id = sessions[0]!.id;
    // Another directory has none; --all finds it.
    expect((await runTern(["sessions", "ls"], { env, cwd: tempDir() })).stdout).toMatch(/^no sessions for /);
    expect((await runTern(["sessions", "ls", "--all"], { env, cwd: tempDir() })).stdout).toContain(
      id.slice(0, 8),
    );

    // --session continues with the whole conversation.
    const again = await runTern(["run", "--session", id.slice(0, 6), "What did I ask?"], { env, cwd: work });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe("You asked about the directory.\n");
    const sent = wireMessages(server.requests[2]!.body).filter((m) => m.role !== "system");
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(contentText(sent[3])).toBe("The directory is empty.");

    const shown = await runTern(["sessions", "show", id.slice(0, 8)], { env });
    expect(shown.code).toBe(0);
    const lines = shown.stdout.split("\n");
    const firstPrompt = lines.find((line) => line.includes("you: What is in this directory?"))!;
    expect(firstPrompt).toMatch(/^\[[0-9a-f]{8}\] you: /);
    expect(shown.stdout).toMatch(/▸ ls \.\n\[[0-9a-f]{8}\] {3}✓ ls \. · 0 entries/);
    expect(shown.stdout).toMatch(/tern test-model .*\n {2}You asked about the directory\./);
    expect(shown.stdout).toMatch(/6 messages/);

    // Fork at the first prompt: the new session holds that path only.
    const entry = /^\[([0-9a-f]{8})\]/.exec(firstPrompt)![1]!;
    const forked = await runTern(["sessions", "fork", id.slice(0, 8), entry], { env });
    expect(forked.code, forked.stderr).toBe(0);
    const forkId = forked.stdout.trim();
    expect(forkId).not.toBe(id);
    const forkShown = await runTern(["sessions", "show", forkId], { env });
    expect(forkShown.stdout).toMatch(new RegExp(`forked from ${id} at ${entry}`));
    expect(forkShown.stdout).toMatch(/you: What is in this directory\?/);
    expect(forkShown.stdout).not.toMatch(/The directory is empty/);

    const markdown = await runTern(["sessions", "export", id, "--format", "md"], { env });
    expect(markdown.stdout).toMatch(/^# What is in this directory\?\n/);
    expect(markdown.stdout).toMatch(
      /## You\n\nWhat did I ask\?\n\n## tern \(test-model\)\n\nYou asked about the directory\./,
    );
    expect(markdown.stdout).toMatch(/<details><summary>✓ ls \.<\/summary>/);
    const jsonl = await runTern(["sessions", "export", id, "--format", "jsonl"], { env });
    const header = JSON.parse(jsonl.stdout.split("\n")[0]!);
    expect(header).toMatchObject({ type: "session", id, cwd: work });

    const badFormat = await runTern(["sessions", "export", id, "--format", "pdf"], { env });
    expect(badFormat.code).toBe(2);
    expect(badFormat.stderr).toBe('tern: --format must be jsonl or md (got "pdf")\n');
    const missingDir = join(work, "no-such-dir", "x.md");
    const unwritable = await runTern(["sessions", "export", id, "--format", "md", "-o", missingDir], {
      env,
    });
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toBe(`tern: cannot write -o ${missingDir}: its directory does not exist\n`);
    const unknown = await runTern(["sessions", "show", "ffffffff"], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^tern: no session "ffffffff" under .*; see tern sessions ls --all\n$/);
  });

  it("labels what the agent's policies injected as what it is, not as the user", async () => {
    const work = tempDir();
    const reads = Array.from({ length: 7 }, (_, i) => ({ name: "ls", args: { path: ".", n: i } }));
    const server = await startScriptedModel([
      toolReply(reads),
      textReply("Nothing here."),
      textReply("Checked: nothing here."),
    ]);
    const env = scriptedModelEnv(server);
    const run = await runTern(["run", "--json", "What is here?"], { env, cwd: work });
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    const kinds = events.filter((event) => event.type === "inject").map((event) => event.kind);
    expect(kinds).toContain("reflection");
    const id = events[0].sessionId;

    const shown = await runTern(["sessions", "show", id], { env, cwd: work });
    expect(shown.stdout).toMatch(/\] you: What is here\?/);
    expect(shown.stdout).toMatch(/\] ↪ reflection: \[SELF-REFLECTION\]/);
    expect(shown.stdout).not.toMatch(/you: \[/);
    const markdown = await runTern(["sessions", "export", id, "--format", "md"], { env, cwd: work });
    expect(markdown.stdout).toMatch(/## ↪ reflection\n\n\[SELF-REFLECTION\]/);
    expect(markdown.stdout).not.toMatch(/## You\n\n\[/);
  });

  it("a corrupt middle line: ls still lists every session and marks that one; show says how to recover", async () => {
    const home = tempDir();
    const work = tempDir();
    const server = await startScriptedModel([textReply("First answer."), textReply("Second answer.")]);
    const env = scriptedModelEnv(server, { TERN_HOME: home });
    expect((await runTern(["run", "first"], { env, cwd: work })).code).toBe(0);
    expect((await runTern(["run", "second"], { env, cwd: work })).code).toBe(0);
    const sessions = JSON.parse((await runTern(["sessions", "ls", "--json"], { env, cwd: work })).stdout) as {
      id: string;
      path: string;
    }[];
    expect(sessions).toHaveLength(2);
    const broken = sessions[0]!;
    const files = readdirSync(join(home, "sessions"), { recursive: true, encoding: "utf8" });
    const file = join(home, "sessions", files.find((name) => name.endsWith(`${broken.id}.jsonl`))!);
    const lines = readFileSync(file, "utf8").split("\n");
    lines[1] = lines[1]!.slice(0, 20);
    const corrupted = lines.join("\n");
    writeFileSync(file, corrupted);

    const listed = await runTern(["sessions", "ls"], { env, cwd: work });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^${broken.id.slice(0, 8)} .*unreadable: line 2: corrupt session line.*tern sessions show ${broken.id.slice(0, 8)}`,
        "m",
      ),
    );
    expect(listed.stdout).toMatch(new RegExp(`^${sessions[1]!.id.slice(0, 8)} (?!.*unreadable)`, "m"));
    const shown = await runTern(["sessions", "show", broken.id.slice(0, 8)], { env, cwd: work });
    expect(shown.code).not.toBe(0);
    expect(shown.stderr).toContain(`${file}:2: corrupt session line`);
    expect(shown.stderr).toMatch(/the file was not changed .*move line 2 out of the file/);
    expect(readFileSync(file, "utf8")).toBe(corrupted);
  });
});
