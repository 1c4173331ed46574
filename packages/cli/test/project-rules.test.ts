// A repository's `.tern/config.json` may ship `allow` rules; they widen nothing until the user
// approved that exact list for the project (`tern hooks approve`, or saving a rule from chat);
// `deny` rules always apply. Real `tern run` processes against a scripted model.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir, ternEnv } from "./support/tern.js";

beforeAll(() => ensureBuilt());

function project(rules: { allow?: string[]; deny?: string[] }): string {
  const work = tempDir();
  mkdirSync(join(work, ".tern"));
  writeFileSync(join(work, ".tern", "config.json"), `${JSON.stringify(rules)}\n`);
  return work;
}

it("a cloned project's allow rules are not in effect until approved, then they are", async () => {
  const work = project({ allow: ["bash(touch:*)"] });
  const server = await startScriptedModel([
    toolReply([{ name: "bash", args: { command: "touch made.txt" } }]),
    textReply("Tried."),
    toolReply([{ name: "bash", args: { command: "touch made.txt" } }]),
    textReply("Made it."),
  ]);
  const env = scriptedModelEnv(server);
  const before = await runTern(["run", "--sandbox", "off", "make it"], { env, cwd: work });
  expect(before.stderr).toMatch(
    /allow rules not in effect until approved .*tern hooks approve.*bash\(touch:\*\)/,
  );
  expect(existsSync(join(work, "made.txt"))).toBe(false);
  // One file holds hooks and rules: reading its hooks does not call the rules unknown.
  expect(before.stderr).not.toContain('"allow" ignored');

  const approved = await runTern(["hooks", "approve", "-C", work], { env, cwd: work });
  expect(approved.code, approved.stderr).toBe(0);
  expect(approved.stdout).toContain("approved the project's allow rules");
  const after = await runTern(["run", "--sandbox", "off", "make it"], { env, cwd: work });
  expect(after.code, after.stderr).toBe(0);
  expect(after.stderr).toMatch(/permission rules from .*\.tern\/config\.json: allow bash\(touch:\*\)/);
  expect(existsSync(join(work, "made.txt"))).toBe(true);
});

it("an edited allow list needs a new approval; deny rules apply without one", async () => {
  const work = project({ allow: ["bash(touch:*)"] });
  const home = tempDir();
  const approved = await runTern(["hooks", "approve", "-C", work], {
    env: ternEnv({ TERN_HOME: home }),
    cwd: work,
  });
  expect(approved.code, approved.stderr).toBe(0);
  writeFileSync(
    join(work, ".tern", "config.json"),
    `${JSON.stringify({ allow: ["bash(touch:*)", "bash(rm:*)"], deny: ["bash(touch:*)"] })}\n`,
  );
  const server = await startScriptedModel([
    toolReply([{ name: "bash", args: { command: "touch made.txt" } }]),
    textReply("Tried."),
  ]);
  const env = scriptedModelEnv(server, { TERN_HOME: home });
  const run = await runTern(["run", "--sandbox", "off", "--mode", "bypass", "make it"], { env, cwd: work });
  expect(run.stderr).toMatch(/allow rules not in effect until approved/);
  expect(run.stderr).toMatch(/permission rules from .*: deny bash\(touch:\*\)/);
  expect(existsSync(join(work, "made.txt"))).toBe(false);
});
