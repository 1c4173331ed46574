// `tern run` end to end: the real bundle as a child process against a loopback OpenAI-compatible
// server that streams scripted replies.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, type ScriptServer, wireMessages } from "@tern/ai/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

function setup() {
  const home = tempDir();
  const work = tempDir();
  const env = (srv: ScriptServer) => scriptedModelEnv(srv, { TERN_HOME: home });
  return { home, work, env };
}

describe("tern run", () => {
  it("streams a text answer to stdout and progress to stderr, exit 0", async () => {
    const { work, env } = setup();
    const server = await startScriptedModel([textReply("The answer is 42.")]);
    const result = await runTern(["run", "What is the answer?"], { env: env(server), cwd: work });
    expect(result.stderr).not.toMatch(/tern: /);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("The answer is 42.\n");
    expect(result.stderr).toMatch(/llamacpp\/test-model/);
    expect(result.stderr).toMatch(/✔ done · 1 turn/);
    const sent = wireMessages(server.requests[0]!.body);
    expect(sent.at(-1)).toMatchObject({ role: "user", content: "What is the answer?" });
    expect(contentText(sent[0])).toMatch(/You are tern/);
  });

  it("reads the prompt from stdin", async () => {
    const { work, env } = setup();
    const server = await startScriptedModel([textReply("ok")]);
    const result = await runTern(["run"], { env: env(server), cwd: work, input: "Summarise this\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("ok\n");
    expect(wireMessages(server.requests[0]!.body).at(-1)).toMatchObject({
      role: "user",
      content: "Summarise this",
    });
  });

  it("runs tools: parallel reads, an allowed bash, an edit; only the final answer reaches stdout", async () => {
    const { work, env } = setup();
    mkdirSync(join(work, "src"));
    writeFileSync(join(work, "src", "a.txt"), "alpha\n");
    writeFileSync(join(work, "src", "b.txt"), "beta\n");
    const server = await startScriptedModel([
      toolReply(
        [
          { name: "read", args: { path: "src/a.txt" } },
          { name: "read", args: { path: "src/b.txt" } },
        ],
        { text: "Reading both files." },
      ),
      toolReply([{ name: "bash", args: { command: "cat src/a.txt src/b.txt | wc -l" } }]),
      toolReply([
        { name: "edit", args: { path: "src/a.txt", edits: [{ oldText: "alpha", newText: "ALPHA" }] } },
      ]),
      textReply("Done."),
      // Four tool calls: the agent's completion checklist asks once before accepting the answer.
      textReply("Both files read; a.txt now says ALPHA."),
    ]);
    const result = await runTern(
      [
        "run",
        "--allow-tool",
        "bash(cat:*)",
        "--allow-tool",
        "bash(wc:*)",
        "--mode",
        "accept-edits",
        "Look at src",
      ],
      { env: env(server), cwd: work },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("Both files read; a.txt now says ALPHA.\n");
    expect(readFileSync(join(work, "src", "a.txt"), "utf8")).toBe("ALPHA\n");
    // Progress: narration, each call as a line, results, the bash exit code, the edit's diff.
    expect(result.stderr).toMatch(/“Reading both files\.”/);
    expect(result.stderr).toMatch(/▸ read src\/a\.txt/);
    expect(result.stderr).toMatch(/▸ read src\/b\.txt/);
    expect(result.stderr).toMatch(
      /▸ bash \$ cat src\/a\.txt src\/b\.txt \| wc -l\n {2}✓ bash · exit 0 · 1 line/,
    );
    expect(result.stderr).toMatch(/-alpha\n.*\+ALPHA/s);
    expect(result.stderr).toMatch(/“Done\.”\n↪ completion-check: \[COMPLETION CHECK\]/);
    expect(result.stderr).toMatch(/✔ done · 5 turns/);
    // What the model got back: both read results after the first call, the command's output after the second.
    const second = wireMessages(server.requests[1]!.body).filter((m) => m.role === "tool");
    expect(second.map(contentText).join("\n")).toMatch(/alpha[\s\S]*beta/);
    const third = wireMessages(server.requests[2]!.body).filter((m) => m.role === "tool");
    expect(contentText(third.at(-1))).toMatch(/^2\n\nExit code: 0$/);
  });

  it("denies a command without a terminal to ask, and tells the model why", async () => {
    const { work, env } = setup();
    const server = await startScriptedModel([
      toolReply([{ name: "bash", args: { command: "touch created-by-model" } }]),
      textReply("I could not run it."),
    ]);
    const result = await runTern(["run", "make a file"], { env: env(server), cwd: work });
    expect(result.code).toBe(0);
    // The shortened line on stderr still says what to pass to allow it.
    expect(result.stderr).toMatch(
      /⊘ bash · denied: bash needs the user's permission \(allow it with --allow-tool 'bash\(touch created-by-model\)'\)/,
    );
    const told = wireMessages(server.requests[1]!.body).find((m) => m.role === "tool");
    expect(contentText(told)).toMatch(
      /without a terminal to ask \(permission mode "ask"\), so it was denied/,
    );
    expect(contentText(told)).toMatch(/Allowed without asking: .*read-only bash commands\./);
  });

  // The README's first real-model command, run from a script in the default mode: the model can
  // look around with read-only commands (a pipeline included) and is told its edits need a flag.
  it("runs read-only commands from a script in the default ask mode; a pipeline with a file redirect is still denied", async () => {
    const { work, env } = setup();
    writeFileSync(join(work, "stats.js"), "export const mean = (xs) => xs.length;\n");
    const server = await startScriptedModel([
      toolReply([{ name: "bash", args: { command: "ls && grep -n mean stats.js | head -5" } }]),
      toolReply([{ name: "bash", args: { command: "cat stats.js > copy.js" } }]),
      textReply("mean divides nothing: it returns the length."),
    ]);
    const result = await runTern(["run", "the tests fail; find the bug and fix it"], {
      env: env(server),
      cwd: work,
    });
    expect(result.code).toBe(0);
    const first = wireMessages(server.requests[1]!.body).filter((m) => m.role === "tool");
    expect(contentText(first.at(-1))).toMatch(/stats\.js[\s\S]*1:export const mean/);
    const second = wireMessages(server.requests[2]!.body).filter((m) => m.role === "tool");
    expect(contentText(second.at(-1))).toMatch(/so it was denied/);
    expect(result.stderr).toMatch(/⊘ bash · denied/);
    expect(result.stdout).toMatch(/returns the length/);
  });

  it("runs twelve calls at once without a MaxListenersExceededWarning", async () => {
    const { work, env } = setup();
    writeFileSync(join(work, "a.txt"), "a\n");
    const calls = Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0
        ? { name: "bash", args: { command: `echo ${i}` } }
        : { name: "read", args: { path: "a.txt" } },
    );
    const server = await startScriptedModel([
      toolReply(calls),
      textReply("Done."),
      textReply("Checked: done."),
    ]);
    const result = await runTern(["run", "--allow-tool", "bash(echo:*)", "go"], {
      env: env(server),
      cwd: work,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.match(/✓ /g)).toHaveLength(12);
    // Every result line names its tool, the last of the batch too (it sits right under its call).
    expect(result.stderr.match(/✓ (bash \$ echo \d+|read a\.txt|bash|read) · /g)).toHaveLength(12);
    expect(result.stderr).not.toMatch(/MaxListenersExceededWarning|memory leak/);
  });
});
