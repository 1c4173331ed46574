// Hooks from settings through the real CLI: shell commands from config.json get the event as JSON
// on stdin and answer by exit code and JSON on stdout (block, rewrite, add context); timeouts,
// bad JSON and crashes are reported (a PreToolUse guard fails closed, the rest fail open); hooks
// run in the bash sandbox; a project's hooks run only once approved with `tern hooks approve`.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, type ScriptServer, wireMessages } from "@tern/ai/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_SKIP_REASON } from "../../tools/test/support-sandbox.js";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { promptNewSession, startScriptedServe } from "./support/serve.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

type Hooks = Record<string, { matcher?: string; command: string; timeout?: number }[]>;

function setup(hooks: Hooks, config: Record<string, unknown> = {}) {
  const home = tempDir();
  const work = tempDir();
  writeFileSync(join(home, "config.json"), JSON.stringify({ hooks, ...config }));
  const env = (srv: ScriptServer) => scriptedModelEnv(srv, { TERN_HOME: home });
  return { home, work, env };
}

/** What the model read as the result of the first tool call. */
function toolResultText(srv: ScriptServer): string {
  const messages = wireMessages(srv.requests[1]!.body);
  return contentText(messages.find((message) => message.role === "tool"));
}

const writeCall = toolReply([{ name: "write", args: { path: "note.txt", content: "from the model" } }]);

describe("PreToolUse hooks", () => {
  it("get the event as JSON on stdin, in the workspace", async () => {
    const { work, env } = setup({ PreToolUse: [{ matcher: "read", command: "cat > seen-event.json" }] });
    writeFileSync(join(work, "a.txt"), "alpha");
    const server = await startScriptedModel([
      toolReply([{ name: "read", args: { path: "a.txt" } }]),
      textReply("done"),
    ]);
    const result = await runTern(["run", "read a.txt"], { env: env(server), cwd: work });
    expect(result.code).toBe(0);
    const event = JSON.parse(readFileSync(join(work, "seen-event.json"), "utf8"));
    expect(event).toMatchObject({
      event: "PreToolUse",
      hook_event_name: "PreToolUse",
      toolName: "read",
      tool_name: "read",
      args: { path: "a.txt" },
      tool_input: { path: "a.txt" },
      cwd: work,
    });
    expect(toolResultText(server)).toContain("alpha");
  });

  it("block with exit 2 (stderr is the reason) and with a JSON decision; the matcher picks the tool", async () => {
    const { work, env } = setup({
      PreToolUse: [
        { matcher: "write", command: "echo 'notes are read-only here' >&2; exit 2" },
        { matcher: "bash", command: `echo '{"decision":"block","reason":"no shell today"}'` },
      ],
    });
    const server = await startScriptedModel([
      writeCall,
      toolReply([{ name: "bash", args: { command: "echo hi" } }]),
      textReply("gave up"),
    ]);
    const result = await runTern(["run", "--mode", "bypass", "write a note"], {
      env: env(server),
      cwd: work,
    });
    expect(result.code).toBe(0);
    expect(existsSync(join(work, "note.txt"))).toBe(false);
    // The reason is the hook's stderr, and only that (no shell startup file ran: --norc).
    expect(toolResultText(server)).toMatch(/denied: notes are read-only here$/);
    const third = wireMessages(server.requests[2]!.body).filter((message) => message.role === "tool");
    expect(contentText(third.at(-1))).toMatch(/denied: no shell today/);
  });

  it("rewrite the arguments; the rewrite is validated against the tool's schema again", async () => {
    const { work, env } = setup({
      PreToolUse: [
        {
          matcher: "write",
          command: `echo '{"args":{"path":"rewritten.txt","content":"from the hook"}}'`,
        },
        { matcher: "edit", command: `echo '{"args":{"path":42}}'` },
      ],
    });
    const server = await startScriptedModel([
      writeCall,
      toolReply([{ name: "edit", args: { path: "rewritten.txt", edits: [{ oldText: "a", newText: "b" }] } }]),
      textReply("done"),
    ]);
    const result = await runTern(["run", "--mode", "bypass", "write a note"], {
      env: env(server),
      cwd: work,
    });
    expect(result.code).toBe(0);
    expect(existsSync(join(work, "note.txt"))).toBe(false);
    expect(readFileSync(join(work, "rewritten.txt"), "utf8")).toBe("from the hook");
    const third = wireMessages(server.requests[2]!.body).filter((message) => message.role === "tool");
    // The edit's rewrite has a number for its path: rejected, so the file is untouched.
    expect(contentText(third.at(-1))).toMatch(/Invalid arguments for tool "edit"/);
    expect(readFileSync(join(work, "rewritten.txt"), "utf8")).toBe("from the hook");
  });

  it("a rewrite is still judged by the permission rules", async () => {
    const { work, env } = setup({
      PreToolUse: [{ matcher: "write", command: `echo '{"args":{"path":"secret.env","content":"x"}}'` }],
    });
    const server = await startScriptedModel([writeCall, textReply("done")]);
    const result = await runTern(["run", "--mode", "bypass", "--deny-tool", "write(*.env)", "write a note"], {
      env: env(server),
      cwd: work,
    });
    expect(result.code).toBe(0);
    expect(existsSync(join(work, "secret.env"))).toBe(false);
    expect(toolResultText(server)).toMatch(/denied/);
  });

  it("a hook that times out, crashes or prints bad JSON fails closed: the call is denied and the error shown", async () => {
    for (const [command, timeout, shown] of [
      ["sleep 30", 0.5, /timed out after 500 ms/],
      ["echo broken >&2; exit 1", undefined, /exited with code 1: broken\n/],
      ["echo not json", undefined, /not JSON/],
    ] as const) {
      const { work, env } = setup({
        PreToolUse: [{ matcher: "write", command, ...(timeout ? { timeout } : {}) }],
      });
      const server = await startScriptedModel([writeCall, textReply("done")]);
      const result = await runTern(["run", "--mode", "bypass", "write a note"], {
        env: env(server),
        cwd: work,
      });
      expect(result.code).toBe(0);
      expect(existsSync(join(work, "note.txt"))).toBe(false);
      expect(result.stderr).toMatch(/! hook error: PreToolUse hook ".*" failed \(fail-closed\)/);
      expect(result.stderr).toMatch(shown);
      expect(toolResultText(server)).toMatch(/the guard hook ".*" failed, so the call is denied/);
      await server.close();
    }
  });
});

describe("other events", () => {
  it("PostToolUse and UserPromptSubmit add context for the model", async () => {
    const { work, env } = setup({
      PostToolUse: [{ matcher: "read", command: `echo '{"additionalContext":"NOTE: a.txt is generated"}'` }],
      UserPromptSubmit: [{ command: `echo '{"additionalContext":"The user prefers short answers."}'` }],
    });
    writeFileSync(join(work, "a.txt"), "alpha");
    const server = await startScriptedModel([
      toolReply([{ name: "read", args: { path: "a.txt" } }]),
      textReply("done"),
    ]);
    const result = await runTern(["run", "read a.txt"], { env: env(server), cwd: work });
    expect(result.code).toBe(0);
    const toolText = toolResultText(server);
    expect(toolText).toContain("alpha");
    expect(toolText).toContain("NOTE: a.txt is generated");
    const user = wireMessages(server.requests[0]!.body).find((message) => message.role === "user");
    expect(contentText(user)).toContain("The user prefers short answers.");
  });

  it("failing hooks of other events fail open: the error is shown and the run goes on", async () => {
    const { work, env } = setup({
      PostToolUse: [{ command: "echo '[1,2]'" }],
      UserPromptSubmit: [{ command: "exit 3" }],
      Stop: [{ command: 'echo \'{"decision":"maybe"}\'' }],
    });
    writeFileSync(join(work, "a.txt"), "alpha");
    const server = await startScriptedModel([
      toolReply([{ name: "read", args: { path: "a.txt" } }]),
      textReply("the end"),
    ]);
    const result = await runTern(["run", "read a.txt"], { env: env(server), cwd: work });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("the end\n");
    expect(result.stderr).toMatch(
      /UserPromptSubmit hook "exit 3" failed: Error: the hook command exited with code 3/,
    );
    expect(result.stderr).toMatch(/PostToolUse hook .* failed: Error: the hook must print a JSON object/);
    expect(result.stderr).toMatch(/Stop hook .* failed: Error: "decision" must be "block" or "allow"/);
    expect(toolResultText(server)).toContain("alpha");
  });

  it("a UserPromptSubmit hook that blocks ends the run before any model call (exit 1)", async () => {
    const { work, env } = setup({
      UserPromptSubmit: [{ command: "echo 'no prompts on Fridays' >&2; exit 2" }],
    });
    const server = await startScriptedModel([textReply("never sent")]);
    const result = await runTern(["run", "hi"], { env: env(server), cwd: work });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/a hook stopped the run: .*no prompts on Fridays/);
    expect(server.requests).toHaveLength(0);
  });

  it("a Stop hook that blocks keeps the agent going with its reason", async () => {
    const { work, env } = setup({
      // Blocks once: the second time the event says a Stop hook is already active.
      Stop: [
        {
          command: `grep -q '"stopHookActive":true' || { echo 'run the tests first' >&2; exit 2; }`,
        },
      ],
    });
    const server = await startScriptedModel([textReply("done early"), textReply("tests pass, done")]);
    const result = await runTern(["run", "fix it"], { env: env(server), cwd: work });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("tests pass, done");
    const second = wireMessages(server.requests[1]!.body);
    expect(contentText(second.at(-1))).toContain("run the tests first");
  });

  it("bad hook settings are warnings, not failures", async () => {
    const { work, env } = setup({
      NoSuchEvent: [{ command: "true" }],
      PreToolUse: [{ command: "" }, { matcher: "read", command: "true", timeout: -1 }],
    } as unknown as Hooks);
    const server = await startScriptedModel([textReply("ok")]);
    const result = await runTern(["run", "hi"], { env: env(server), cwd: work });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/hooks\.NoSuchEvent: unknown event/);
    expect(result.stderr).toMatch(/hooks\.PreToolUse\[0\]: "command" must be a non-empty string/);
    expect(result.stderr).toMatch(/hooks\.PreToolUse\[1\]: "timeout" must be a positive number of seconds/);
  });
});

describe.skipIf(SANDBOX_SKIP_REASON !== undefined)("hooks in the sandbox", () => {
  it("a hook cannot write outside the workspace (nor see $TERN_HOME); inside it can", async () => {
    const outside = tempDir();
    const { home, work, env } = setup({});
    const command = `echo escaped > ${outside}/escape.txt; ls -a ${home} > home-listing.txt; echo inside > inside.txt`;
    writeFileSync(join(home, "config.json"), JSON.stringify({ hooks: { SessionStart: [{ command }] } }));
    const server = await startScriptedModel([textReply("ok")]);
    const result = await runTern(["run", "hi"], { env: env(server), cwd: work });
    expect(result.code).toBe(0);
    expect(existsSync(join(outside, "escape.txt"))).toBe(false);
    expect(readFileSync(join(work, "inside.txt"), "utf8")).toBe("inside\n");
    expect(readFileSync(join(work, "home-listing.txt"), "utf8")).not.toContain("config.json");
  });
});

describe("project hooks", () => {
  it("run only after `tern hooks approve`; an edit needs a new approval", async () => {
    const { home, work, env } = setup({});
    mkdirSync(join(work, ".git"));
    mkdirSync(join(work, ".tern"));
    const projectConfig = (text: string) =>
      writeFileSync(
        join(work, ".tern", "config.json"),
        JSON.stringify({
          hooks: { UserPromptSubmit: [{ command: `echo '{"additionalContext":"${text}"}'` }] },
        }),
      );
    projectConfig("PROJECT CONTEXT ONE");
    const server = await startScriptedModel([textReply("ok"), textReply("ok"), textReply("ok")]);
    const hookEnv = env(server);
    const userPrompt = (index: number) =>
      contentText(wireMessages(server!.requests[index]!.body).find((message) => message.role === "user"));

    const before = await runTern(["run", "hi"], { env: hookEnv, cwd: work });
    expect(before.code).toBe(0);
    expect(before.stderr).toMatch(/1 project hook not approved, so not run; review them \(tern hooks\)/);
    expect(userPrompt(0)).not.toContain("PROJECT CONTEXT");

    const listed = await runTern(["hooks"], { env: hookEnv, cwd: work });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/project hooks \(.*\.tern\/config\.json\) · not approved/);
    expect(listed.stdout).toMatch(/UserPromptSubmit\s+\*\s+echo/);
    const approved = await runTern(["hooks", "approve"], { env: hookEnv, cwd: work });
    expect(approved.stdout).toMatch(/approved 1 project hook\(s\)/);
    expect(existsSync(join(home, "hook-approvals.json"))).toBe(true);

    const after = await runTern(["run", "hi"], { env: hookEnv, cwd: work });
    expect(after.code).toBe(0);
    expect(after.stderr).not.toMatch(/not approved/);
    expect(userPrompt(1)).toContain("PROJECT CONTEXT ONE");

    projectConfig("PROJECT CONTEXT TWO");
    const edited = await runTern(["run", "hi"], { env: hookEnv, cwd: work });
    expect(edited.stderr).toMatch(/not approved/);
    expect(userPrompt(2)).not.toContain("PROJECT CONTEXT");
  });
});

describe("hooks in tern serve", () => {
  it("the user's hooks run in served sessions", async () => {
    const model = await startScriptedModel();
    const home = tempDir();
    const work = tempDir();
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({
        hooks: { UserPromptSubmit: [{ command: `echo '{"additionalContext":"SERVED HOOK CONTEXT"}'` }] },
      }),
    );
    const served = await startScriptedServe(model.providerUrl, home, work);
    model.push(textReply("Hello."));
    await promptNewSession(served.base, "hi");
    const body = model.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
    const user = body.messages.find((message) => message.role === "user");
    expect(JSON.stringify(user)).toContain("SERVED HOOK CONTEXT");
  });
});
