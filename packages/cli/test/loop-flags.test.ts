// --tool-mode, --answer-mode, --max-turns and --autopilot reach the agent's ReAct policies: each is
// visible in what the model is sent and in what tern prints.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, type ScriptServer, wireMessages } from "@tern/ai/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

function workspace() {
  const work = tempDir();
  writeFileSync(join(work, "note.txt"), "the note says hi\n");
  return work;
}

function env(srv: ScriptServer) {
  return scriptedModelEnv(srv);
}

describe("loop options", () => {
  it("--tool-mode json: the catalog goes in the system prompt and JSON replies become tool calls", async () => {
    const server = await startScriptedModel([
      textReply(
        '{"type":"tool_call","reasoning":"look first","tool_name":"read","tool_args":{"path":"note.txt"}}',
      ),
      textReply('{"type":"final_answer","reasoning":"read it","answer":"The note says hi."}'),
    ]);
    const result = await runTern(["run", "--tool-mode", "json", "what does the note say?"], {
      env: env(server),
      cwd: workspace(),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("The note says hi.\n");
    expect(result.stderr).toMatch(/▸ read note\.txt\n {2}✓ read · 1 line of 1/);
    const first = server.requests[0]!.body as { tools?: unknown };
    expect(first.tools).toBeUndefined();
    expect(contentText(wireMessages(first)[0])).toMatch(/# How to reply[\s\S]*## read/);
    // The result comes back as a user message in protocol form.
    expect(contentText(wireMessages(server.requests[1]!.body).at(-1))).toMatch(/the note says hi/);
  });

  it("--answer-mode synthesize: a separate streamed call writes the answer from the trace", async () => {
    const server = await startScriptedModel([
      toolReply([{ name: "read", args: { path: "note.txt" } }]),
      textReply("loop's own words"),
      textReply("The note greets you."),
    ]);
    const result = await runTern(["run", "--answer-mode", "synthesize", "what does the note say?"], {
      env: env(server),
      cwd: workspace(),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("The note greets you.\n");
    expect(result.stderr).toMatch(/· synthesis call · test-model/);
    const synthesis = wireMessages(server.requests[2]!.body);
    expect(contentText(synthesis[0])).toMatch(/You write the final answer/);
    expect(contentText(synthesis.at(-1))).toMatch(/what does the note say\?[\s\S]*the note says hi/);
  });

  it("--max-turns: the run stops at the limit with a summary answer and exit code 1", async () => {
    const server = await startScriptedModel([toolReply([{ name: "read", args: { path: "note.txt" } }])]);
    const result = await runTern(["run", "--max-turns", "1", "keep reading"], {
      env: env(server),
      cwd: workspace(),
    });
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(result.stdout).toMatch(/^I stopped after 1 step without reaching a final answer/);
    expect(result.stderr.trimEnd().split("\n").at(-1)).toBe(
      "tern: stopped after 1 turn without a final answer; raise --max-turns to allow more",
    );
  });

  it("--autopilot: a nudge until the model calls task_complete, whose summary is the answer", async () => {
    const server = await startScriptedModel([
      textReply("I plan to look at the note."),
      toolReply([{ name: "task_complete", args: { summary: "Read the note: it says hi." } }]),
    ]);
    const result = await runTern(["run", "--autopilot", "read the note"], {
      env: env(server),
      cwd: workspace(),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/↪ nudge: \[AUTOPILOT\] You have not marked the task complete/);
    expect(result.stderr).toMatch(/✔ task complete: Read the note: it says hi\./);
    expect(result.stdout).toBe("Read the note: it says hi.\n");
    const tools = (server.requests[0]!.body as { tools?: { function: { name: string } }[] }).tools ?? [];
    expect(tools.map((tool) => tool.function.name)).toContain("task_complete");
  });
});
