import { contentText, wireMessages } from "@tern/ai/testing";
import { beforeAll, expect, it } from "vitest";
import { running, until } from "./support/processes.js";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, spawnTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

it("SIGINT mid-run exits 130 with the session saved, and sessions resume finishes it", async () => {
  const home = tempDir();
  const work = tempDir();
  // A unique duration, so the test can look for this very process.
  const command = "sleep 9.317 && echo finished";
  const server = await startScriptedModel([
    toolReply([{ name: "bash", args: { command } }]),
    textReply("Resumed: all done."),
  ]);
  const env = scriptedModelEnv(server, { TERN_HOME: home });

  const tern = spawnTern(
    ["run", "--allow-tool", "bash(sleep:*)", "--allow-tool", "bash(echo:*)", "wait for it"],
    { env, cwd: work },
  );
  await tern.waitFor(/▸ bash \$ sleep 9\.317/);
  await until(() => running("sleep 9.317"), "the command to start");
  tern.child.kill("SIGINT");
  const result = await tern.done;
  expect(result.code).toBe(130);
  expect(result.stdout).toBe("");
  expect(result.stderr).toMatch(/✗ bash \$ sleep 9\.317 && echo finished · aborted/);
  const id = /tern sessions resume ([0-9a-f-]+)/.exec(result.stderr)?.[1];
  expect(id, result.stderr).toBeDefined();
  // The kill reaches the sandbox's PID namespace at once; the kernel reaps its members just after.
  await until(() => !running("sleep 9.317"), "the aborted command to be gone");

  // The saved session shows the aborted call.
  const shown = await runTern(["sessions", "show", id!.slice(0, 8)], { env, cwd: work });
  expect(shown.code).toBe(0);
  expect(shown.stdout).toMatch(/you: wait for it/);
  expect(shown.stdout).toMatch(/✗ bash \$ sleep 9\.317 && echo finished · aborted/);

  const resumed = await runTern(["sessions", "resume", id!.slice(0, 8)], { env, cwd: work });
  expect(resumed.stderr).toMatch(/resuming session/);
  expect(resumed.code).toBe(0);
  expect(resumed.stdout).toBe("Resumed: all done.\n");
  // The model saw the call, its aborted result, then the note that the user resumed.
  const sent = wireMessages(server.requests[1]!.body);
  const tool = sent.find((message) => message.role === "tool");
  expect(contentText(tool)).toMatch(/aborted/);
  expect(sent.at(-1)?.role).toBe("user");
  expect(contentText(sent.at(-1))).toMatch(/interrupted the previous run \(Ctrl-C\)/);
});

it("after a crash (SIGKILL) sessions resume repairs the run and continues it", async () => {
  const home = tempDir();
  const work = tempDir();
  const server = await startScriptedModel([
    toolReply([{ name: "bash", args: { command: "sleep 8.519" } }]),
    textReply("Picked up after the crash."),
  ]);
  const env = scriptedModelEnv(server, { TERN_HOME: home });
  const tern = spawnTern(["run", "--allow-tool", "bash(sleep:*)", "--json", "wait"], { env, cwd: work });
  await tern.waitFor(/"type":"tool_execution_start"/, "stdout");
  await until(() => running("sleep 8.519"), "the command to start");
  tern.child.kill("SIGKILL");
  await tern.done;
  // The killed process could not kill its command itself, but the sandbox dies with its parent.
  await until(() => !running("sleep 8.519"), "the orphaned command to be gone");

  const listed = await runTern(["sessions", "ls", "--json"], { env, cwd: work });
  const sessionId = (JSON.parse(listed.stdout) as { id: string }[])[0]!.id;
  const resumed = await runTern(["sessions", "resume", sessionId], { env, cwd: work });
  expect(resumed.code, resumed.stderr).toBe(0);
  expect(resumed.stderr).toMatch(/resuming session [0-9a-f]{8} \(repaired an interrupted run\)/);
  expect(resumed.stdout).toBe("Picked up after the crash.\n");
  const sent = wireMessages(server.requests[1]!.body);
  expect(sent.at(-1)?.role).toBe("tool");
  expect(contentText(sent.at(-1))).toMatch(/interrupted: the process stopped before this tool finished/);
});
