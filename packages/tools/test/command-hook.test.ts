// Command hooks through the library: real shell commands in a HookRegistry. Block by exit code,
// rewrite, context; a timeout kills the hook's whole process group; every bad answer is a
// reported failure (fail-closed for PreToolUse, fail-open elsewhere). The sandboxed path is
// covered end to end in packages/cli/test/hooks.test.ts.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { HookRegistry } from "@tern/agent";
import { describe, expect, it } from "vitest";
import { HOOK_OUTPUT_MAX_BYTES } from "../src/hooks/command-hook.js";
import { type CommandHookSpec, commandHook } from "../src/index.js";
import { tempDir } from "./support.js";
import { hostProcesses, SANDBOX_SKIP_REASON, waitFor } from "./support-sandbox.js";

const OFF = { profile: "off" } as const;

/** What a hook run reports for a hook that failed (the argument of its report callback). */
type HookFailure = Parameters<Parameters<HookRegistry["runPreToolUse"]>[1]>[0];

async function preToolUse(root: string, spec: Omit<CommandHookSpec, "event">) {
  const failures: HookFailure[] = [];
  const hooks = new HookRegistry([commandHook({ event: "PreToolUse", ...spec }, { root, sandbox: OFF })]);
  const decision = await hooks.runPreToolUse(
    { toolName: "write", toolCallId: "c1", args: { path: "a.txt", content: "x" } },
    (failure) => {
      failures.push(failure);
    },
  );
  return { decision, failures };
}

describe("commandHook", () => {
  it("gets the event on stdin and $TERN_PROJECT_DIR; exit 0 with no output is no opinion", async () => {
    const root = await tempDir();
    const { decision, failures } = await preToolUse(root, {
      command: 'cat > event.json; echo "$TERN_PROJECT_DIR" > project.txt',
    });
    expect(failures).toEqual([]);
    expect(decision).toMatchObject({ action: "allow", argsRewritten: false });
    expect(JSON.parse(readFileSync(path.join(root, "event.json"), "utf8"))).toEqual({
      event: "PreToolUse",
      hook_event_name: "PreToolUse",
      toolName: "write",
      tool_name: "write",
      toolCallId: "c1",
      args: { path: "a.txt", content: "x" },
      tool_input: { path: "a.txt", content: "x" },
      cwd: root,
    });
    expect(readFileSync(path.join(root, "project.txt"), "utf8")).toBe(`${root}\n`);
  });

  it("blocks with exit 2 (stderr is the reason) or a JSON decision, and rewrites arguments", async () => {
    const root = await tempDir();
    const exit2 = await preToolUse(root, { command: "echo 'not today' >&2; exit 2" });
    expect(exit2.decision).toMatchObject({ action: "deny", reason: expect.stringContaining("not today") });
    const json = await preToolUse(root, { command: `echo '{"decision":"block","reason":"policy"}'` });
    expect(json.decision).toMatchObject({ action: "deny", reason: "policy" });
    const rewrite = await preToolUse(root, { command: `echo '{"args":{"path":"b.txt","content":"y"}}'` });
    expect(rewrite.decision).toMatchObject({
      action: "allow",
      argsRewritten: true,
      args: { path: "b.txt", content: "y" },
    });
  });

  it("a hook that runs too long is killed with everything it started, and its guard denies", async () => {
    const root = await tempDir();
    const sleeper = ["sleep", "4321.5"];
    const { decision, failures } = await preToolUse(root, {
      command: `${sleeper.join(" ")} & ${sleeper.join(" ")}`,
      timeoutMs: 300,
    });
    expect(failures).toMatchObject([{ event: "PreToolUse", timedOut: true, failClosed: true }]);
    expect(decision.action).toBe("deny");
    await waitFor(() => (hostProcesses(sleeper).length === 0 ? true : undefined));
  });

  it("every bad answer is a failure with a clear message", async () => {
    const root = await tempDir();
    const cases: [string, RegExp][] = [
      ["exit 1", /exited with code 1/],
      ["echo '{oops'", /not JSON/],
      ["echo '\"text\"'", /must print a JSON object/],
      [`echo '{"decision":"deny"}'`, /"decision" must be "block" or "allow"/],
      [`echo '{"verdict":"no"}'`, /unknown fields: verdict/],
      [`echo '{"args":[1]}'`, /"args" must be a JSON object/],
      [
        `echo '{"additionalContext":"x"}'`,
        /PreToolUse hooks answer with "decision", "reason" and "args" only/,
      ],
      [`head -c ${HOOK_OUTPUT_MAX_BYTES + 10} /dev/zero | tr '\\0' a`, /printed more than/],
      ["kill -9 $$", /killed by SIGKILL/],
    ];
    for (const [command, message] of cases) {
      const { decision, failures } = await preToolUse(root, { command });
      expect(failures.map((failure) => failure.message)).toEqual([expect.stringMatching(message)]);
      expect(decision.action).toBe("deny");
    }
  });

  it("fails open for other events; adds context to results, prompts and the session", async () => {
    const root = await tempDir();
    const failures: HookFailure[] = [];
    const report = (failure: HookFailure) => {
      failures.push(failure);
    };
    const hooks = new HookRegistry([
      commandHook(
        { event: "SessionStart", command: `echo '{"additionalContext":"hello"}'` },
        { root, sandbox: OFF },
      ),
      commandHook({ event: "SessionStart", command: "exit 7" }, { root, sandbox: OFF }),
      commandHook(
        { event: "PostToolUse", matcher: "read", command: `echo '{"additionalContext":"generated file"}'` },
        { root, sandbox: OFF },
      ),
      commandHook(
        { event: "UserPromptSubmit", command: `echo '{"prompt":"rewritten","additionalContext":"ctx"}'` },
        { root, sandbox: OFF },
      ),
    ]);
    expect(await hooks.runSessionStart({ source: "startup" }, report)).toEqual(["hello"]);
    expect(failures).toMatchObject([{ event: "SessionStart", failClosed: false }]);
    const result = await hooks.runPostToolUse(
      {
        toolName: "read",
        toolCallId: "c2",
        args: {},
        result: { content: [{ type: "text", text: "body" }], isError: false, terminate: false },
      },
      report,
    );
    expect(result.content).toEqual([
      { type: "text", text: "body" },
      { type: "text", text: "generated file" },
    ]);
    const blocking = new HookRegistry([
      commandHook(
        { event: "PostToolUse", command: "echo 'secret in output' >&2; exit 2" },
        { root, sandbox: OFF },
      ),
    ]);
    const blocked = await blocking.runPostToolUse(
      {
        toolName: "bash",
        toolCallId: "c3",
        args: {},
        result: { content: [{ type: "text", text: "out" }], isError: false, terminate: false },
      },
      report,
    );
    expect(blocked).toMatchObject({
      isError: true,
      content: [
        { type: "text", text: "out" },
        { type: "text", text: "[blocked by a hook] secret in output" },
      ],
    });
    const prompt = await hooks.runUserPromptSubmit(
      { message: { role: "user", content: "original", timestamp: 0 }, prompt: "original" },
      report,
    );
    expect(prompt.message.content).toEqual([
      { type: "text", text: "rewritten" },
      { type: "text", text: "ctx" },
    ]);
  });
});

describe.skipIf(SANDBOX_SKIP_REASON !== undefined)("commandHook in the sandbox", () => {
  it("reads a script in the settings' directory above the workspace, even under the private /tmp", async () => {
    const project = await tempDir();
    const root = path.join(project, "pkg");
    mkdirSync(root);
    mkdirSync(path.join(project, ".tern"));
    writeFileSync(path.join(project, ".tern", "guard.sh"), "echo 'from the project script' >&2; exit 2\n");
    const hooks = new HookRegistry([
      commandHook(
        { event: "PreToolUse", command: 'bash "$TERN_PROJECT_DIR/.tern/guard.sh"' },
        { root, projectDir: project, sandbox: { profile: "sandbox" } },
      ),
    ]);
    const decision = await hooks.runPreToolUse(
      { toolName: "write", toolCallId: "c1", args: { path: "a.txt", content: "x" } },
      () => {},
    );
    expect(decision).toMatchObject({
      action: "deny",
      reason: expect.stringContaining("from the project script"),
    });
  });
});
