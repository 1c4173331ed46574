// `tern run --strategy plan` against a scripted loopback model: the plan's step table on stderr,
// the synthesised answer on stdout, the plan replayed by `tern sessions show`, and a bad
// strategy refused as a usage error.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, spawnTern, tempDir, ternEnv } from "./support/tern.js";

beforeAll(ensureBuilt);

describe("tern run --strategy plan", () => {
  it("plans, runs the step with the real tools, analyses, answers, and the session replays the plan", async () => {
    const work = tempDir();
    writeFileSync(join(work, "note.txt"), "the note says hi\n");
    const server = await startScriptedModel([
      toolReply([
        {
          name: "make_plan",
          args: { steps: [{ id: "read-note", task: "Read note.txt", dependencies: [], tool_hint: "read" }] },
        },
      ]),
      toolReply([{ name: "read", args: { path: "note.txt" } }]),
      textReply("note.txt says hi."),
      toolReply([
        { name: "analyze_results", args: { achieved: true, confidence: 0.95, reasoning: "read it" } },
      ]),
      textReply("The note says hi."),
    ]);
    const env = scriptedModelEnv(server);
    const result = await runTern(["run", "--strategy", "plan", "what does the note say?"], {
      env,
      cwd: work,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("The note says hi.\n");
    expect(result.stderr).toContain("Plan, round 1: 1 step");
    expect(result.stderr).toMatch(/· read-note\s+waiting\s+Read note\.txt/);
    expect(result.stderr).toMatch(/▸ \[read-note\] read note\.txt/);
    expect(result.stderr).toMatch(/✓ step read-note done/);
    expect(result.stderr).toMatch(/◆ round 1: achieved \(confidence 0\.95\)/);
    expect(result.stderr).toMatch(/✔ done · 1 step/);
    expect(server.requests).toHaveLength(5);

    const listed = await runTern(["sessions", "ls", "--json"], { env, cwd: work });
    const [session] = JSON.parse(listed.stdout) as { id: string }[];
    const shown = await runTern(["sessions", "show", session!.id], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("Plan, round 1: 1 step");
    expect(shown.stdout).toMatch(/✓ read-note\s+done\s+Read note\.txt/);
    expect(shown.stdout).toContain("The note says hi.");
  });

  it("tern chat from a pipe runs a `/plan TASK` line as a plan and other lines as the loop", async () => {
    const server = await startScriptedModel([
      textReply("Hello."),
      toolReply([{ name: "make_plan", args: { steps: [{ id: "count", task: "Count to 3" }] } }]),
      textReply("1 2 3"),
      toolReply([{ name: "analyze_results", args: { achieved: true, confidence: 1, reasoning: "counted" } }]),
      textReply("Counted: 1 2 3."),
    ]);
    const env = scriptedModelEnv(server);
    const result = await runTern(["chat", "--tools", "none"], {
      env,
      cwd: tempDir(),
      input: "hi\n/plan count to 3\n",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("Hello.\nCounted: 1 2 3.\n");
    expect(result.stderr).toContain("Plan, round 1: 1 step");
    expect(server.requests).toHaveLength(5);
  });

  it("Ctrl-C mid-plan saves the session, and sessions resume goes on with the finished steps kept", async () => {
    const work = tempDir();
    const server = await startScriptedModel([
      toolReply([
        {
          name: "make_plan",
          args: {
            steps: [
              { id: "a", task: "Find A" },
              { id: "b", task: "Wait for B", dependencies: ["a"] },
            ],
          },
        },
      ]),
      textReply("A is 7."),
      toolReply([{ name: "bash", args: { command: "sleep 9.421" } }]),
      textReply("B is 8."),
      toolReply([{ name: "analyze_results", args: { achieved: true, confidence: 1, reasoning: "both" } }]),
      textReply("A is 7 and B is 8."),
    ]);
    const env = scriptedModelEnv(server);
    const tern = spawnTern(["run", "--strategy", "plan", "--allow-tool", "bash(sleep:*)", "find A and B"], {
      env,
      cwd: work,
    });
    await tern.waitFor(/▸ \[b\] bash \$ sleep 9\.421/);
    tern.child.kill("SIGINT");
    const first = await tern.done;
    expect(first.code).toBe(130);
    expect(first.stderr).toMatch(/✓ step a done/);
    expect(first.stderr).toMatch(/– step b aborted/);
    const id = /tern sessions resume ([0-9a-f-]+)/.exec(first.stderr)?.[1];
    expect(id, first.stderr).toBeDefined();

    const resumed = await runTern(["sessions", "resume", id!.slice(0, 8)], { env, cwd: work });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("an unfinished plan: its finished steps are kept");
    expect(resumed.stdout).toBe("A is 7 and B is 8.\n");
    // No new plan and no second run of step a: b, the analysis and the answer only.
    expect(server.requests).toHaveLength(6);
    expect(JSON.stringify(server.requests[3]!.body)).toContain("A is 7.");
  });

  it("answers from the steps' results with a warning when the analysis cannot be read", async () => {
    const server = await startScriptedModel([
      toolReply([{ name: "make_plan", args: { steps: [{ id: "count", task: "Count to 3" }] } }]),
      textReply("1 2 3"),
      // The analyzer's reply at every level of the degradation chain (tool call, text, its retry) is unreadable.
      textReply("I will not call the tool"),
      textReply("not json"),
      textReply("{still not"),
    ]);
    const result = await runTern(["run", "--tools", "none", "--strategy", "plan", "count to 3"], {
      env: scriptedModelEnv(server),
      cwd: tempDir(),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      "The analysis could not be read; this answer is assembled from the steps' results:\n\n[count] (done) Count to 3\n1 2 3\n",
    );
    expect(result.stderr).toContain(
      "! the analysis could not be read; the answer is assembled from the steps' results",
    );
    expect(result.stderr).toMatch(/✔ done · 1 step/);
    expect(result.stderr).not.toContain("✗ failed");
    // The plan, the step and three analysis attempts: no replan, no synthesis.
    expect(server.requests).toHaveLength(5);
  });

  it("refuses an unknown strategy before anything starts", async () => {
    const result = await runTern(["run", "--strategy", "swarm", "hi"], {
      env: ternEnv({ TERN_HOME: tempDir() }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('tern: --strategy must be one of loop, plan, auto (got "swarm")\n');
  });
});
