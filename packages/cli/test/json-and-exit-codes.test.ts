// `tern run --json` event lines, and the exit codes: 0 done, 1 failed, 2 bad usage (130 is in
// interrupt.test.ts). Every failure is one line on stderr naming the fix, without a stack trace.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ScriptStep, serveScript } from "@tern/ai/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir, ternEnv } from "./support/tern.js";

beforeAll(ensureBuilt);

/** Event types with runs of message_update collapsed and messages tagged with their role. */
function outline(events: { type: string; message?: { role?: string } }[]): string[] {
  const out: string[] = [];
  for (const event of events) {
    const label =
      event.type === "message_start" || event.type === "message_end"
        ? `${event.type}:${event.message?.role}`
        : event.type;
    if (label === "message_update" && out.at(-1) === label) continue;
    out.push(label);
  }
  return out;
}

describe("tern run --json", () => {
  it("prints every event as one JSON line, in the documented order", async () => {
    const work = tempDir();
    writeFileSync(join(work, "notes.txt"), "remember the milk\n");
    const server = await startScriptedModel([
      toolReply([{ name: "read", args: { path: "notes.txt" } }]),
      textReply("Milk."),
    ]);
    const env = scriptedModelEnv(server);
    const result = await runTern(["run", "--json", "what do my notes say?"], { env, cwd: work });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    const events = lines.map((line) => JSON.parse(line));
    expect(outline(events)).toEqual([
      "agent_start",
      "policies",
      "turn_start",
      "message_start:user",
      "message_end:user",
      "model_call_start",
      "message_start:assistant",
      "message_update",
      "message_end:assistant",
      "model_call_end",
      "tool_execution_start",
      "tool_execution_end",
      "message_start:toolResult",
      "message_end:toolResult",
      "turn_end",
      "turn_start",
      "model_call_start",
      "message_start:assistant",
      "message_update",
      "message_end:assistant",
      "model_call_end",
      "turn_end",
      "agent_end",
    ]);
    const end = events.at(-1);
    expect(end).toMatchObject({ type: "agent_end", answer: "Milk.", stopReason: "stop", iterations: 2 });
    // agent_start names the session, so a script can resume it.
    const sessionId = events[0].sessionId;
    expect(sessionId).toMatch(/^[0-9a-f-]{8,}$/);
    const shown = await runTern(["sessions", "show", sessionId], { env, cwd: work });
    expect(shown.stderr).toBe("");
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/what do my notes say\?/);
    const toolEnd = events.find((event) => event.type === "tool_execution_end");
    expect(toolEnd).toMatchObject({ toolName: "read", isError: false });
    expect(JSON.stringify(toolEnd.result.content)).toMatch(/remember the milk/);
    // message_update lines carry the delta, not the whole message again.
    const update = events.find(
      (event) => event.type === "message_update" && event.assistantEvent.type === "text_delta",
    );
    expect(update.message).toBeUndefined();
    expect(update.assistantEvent.partial).toBeUndefined();
    expect(typeof update.assistantEvent.delta).toBe("string");
    const deltas = events
      .filter((event) => event.type === "message_update" && event.assistantEvent.type === "text_delta")
      .map((event) => event.assistantEvent.delta)
      .join("");
    expect(deltas).toBe("Milk.");
  });
});

describe("retries", () => {
  const rateLimited: ScriptStep = {
    kind: "json",
    status: 429,
    headers: { "retry-after-ms": "20" },
    body: { error: { message: "Rate limit reached", type: "rate_limit_error" } },
  };

  it("says on stderr why it waits and which attempt comes next", async () => {
    const server = await startScriptedModel([rateLimited, textReply("Fine.")]);
    const result = await runTern(["run", "hi"], { env: scriptedModelEnv(server), cwd: tempDir() });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Fine.\n");
    expect(result.stderr).toMatch(/↻ retrying in 20 ms \(429 rate limited, attempt 2\/4\)/);
  });

  it("is a model_retry event in --json", async () => {
    const server = await startScriptedModel([rateLimited, textReply("Fine.")]);
    const result = await runTern(["run", "--json", "hi"], { env: scriptedModelEnv(server), cwd: tempDir() });
    expect(result.code).toBe(0);
    const events = result.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.find((event) => event.type === "model_retry")).toMatchObject({
      purpose: "turn",
      attempt: 2,
      maxAttempts: 4,
      delayMs: 20,
      errorKind: "rate_limit",
      status: 429,
    });
  });
});

describe("exit codes", () => {
  const oneLine = (stderr: string) => {
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/^tern: /);
    expect(stderr).not.toMatch(/\n\s+at /);
  };

  it("2 for a bad flag, with a suggestion", async () => {
    const result = await runTern(["run", "--modle", "x", "hi"], { env: ternEnv({ TERN_HOME: tempDir() }) });
    expect(result.code).toBe(2);
    oneLine(result.stderr);
    expect(result.stderr).toMatch(/unknown option --modle .*did you mean --model\?/);
  });

  it("2 for a bad option value", async () => {
    const result = await runTern(["run", "--tool-mode", "magic", "hi"], {
      env: ternEnv({ TERN_HOME: tempDir() }),
    });
    expect(result.code).toBe(2);
    oneLine(result.stderr);
    expect(result.stderr).toMatch(/--tool-mode must be one of native, json, auto/);
  });

  it("2 for a missing key, naming the variable", async () => {
    const result = await runTern(["run", "--provider", "anthropic", "hi"], {
      env: ternEnv({ TERN_HOME: tempDir() }),
    });
    expect(result.code).toBe(2);
    oneLine(result.stderr);
    expect(result.stderr).toMatch(/no API key for anthropic: set ANTHROPIC_API_KEY or pass --api-key/);
  });

  it("2 for an unknown model of a catalogued provider", async () => {
    const result = await runTern(["run", "--model", "openai/gpt-9", "hi"], {
      env: ternEnv({ TERN_HOME: tempDir(), OPENAI_API_KEY: "sk-test" }),
    });
    expect(result.code).toBe(2);
    oneLine(result.stderr);
    expect(result.stderr).toMatch(/unknown model "gpt-9" for openai: see tern models/);
  });

  it("2 when no model is configured at all", async () => {
    const result = await runTern(["run", "hi"], { env: ternEnv({ TERN_HOME: tempDir() }) });
    expect(result.code).toBe(2);
    oneLine(result.stderr);
    expect(result.stderr).toMatch(/no model chosen: set OPENAI_API_KEY/);
  });

  it("1 when the server is unreachable", async () => {
    const closed = await serveScript();
    const url = closed.baseUrl;
    await closed.close();
    const home = tempDir();
    writeFileSync(join(home, "config.json"), JSON.stringify({ retry: { maxRetries: 0 } }));
    const result = await runTern(["run", "hi"], {
      env: scriptedModelEnv({ baseUrl: url }, { TERN_HOME: home }),
      cwd: tempDir(),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    const last = result.stderr.trimEnd().split("\n").at(-1)!;
    expect(last).toMatch(
      new RegExp(`^tern: cannot reach ${url.replace(/[.]/g, "\\.")}/v1 .*is the server running`),
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("1 when the reply stops short, saying so rather than 'cannot reach'", async () => {
    const server = await startScriptedModel([textReply("The answer is", { unfinished: true })]);
    const result = await runTern(["run", "hi"], { env: scriptedModelEnv(server), cwd: tempDir() });
    expect(result.code).toBe(1);
    const last = result.stderr.trimEnd().split("\n").at(-1)!;
    expect(last).toMatch(/^tern: http:\/\/127\.0\.0\.1:\d+\/v1 stopped the reply before it was complete/);
    expect(last).not.toMatch(/cannot reach/);
  });

  it("1 for an empty reply, which is not an answer", async () => {
    const server = await startScriptedModel([textReply("")]);
    const result = await runTern(["run", "hi"], { env: scriptedModelEnv(server), cwd: tempDir() });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr.trimEnd().split("\n").at(-1)).toMatch(
      /^tern: the model sent an empty reply \(no text, no tool call\); try again/,
    );
  });

  it("1 when the answer synthesis fails: the loop's own reply is printed whole, and --json's deltas add up", async () => {
    const work = tempDir();
    writeFileSync(join(work, "notes.txt"), "remember the milk\n");
    const script = () => [
      toolReply([{ name: "read", args: { path: "notes.txt" } }]),
      textReply("Milk, says the loop."),
      textReply("The notes say: remember", { unfinished: true }),
    ];
    let server = await startScriptedModel(script());
    const args = ["run", "--answer-mode", "synthesize", "what do my notes say?"];
    const result = await runTern(args, { env: scriptedModelEnv(server), cwd: work });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("Milk, says the loop.\n");
    expect(result.stderr.trimEnd().split("\n").at(-1)).toMatch(
      /^tern: answer synthesis failed: .*; what was printed is the model's own last reply/,
    );
    await server.close();

    server = await startScriptedModel(script());
    const json = await runTern([...args.slice(0, 1), "--json", ...args.slice(1)], {
      env: scriptedModelEnv(server),
      cwd: work,
    });
    expect(json.code).toBe(1);
    const events = json.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    const lastStart = events.map((event) => event.type).lastIndexOf("answer_start");
    const deltas = events
      .slice(lastStart)
      .filter((event) => event.type === "answer_delta")
      .map((event) => event.delta)
      .join("");
    const end = events.find((event) => event.type === "answer_end");
    expect(end).toMatchObject({
      answer: "Milk, says the loop.",
      error: expect.stringMatching(/^Answer synthesis failed/),
    });
    expect(deltas).toBe(end.answer);
  });

  it("1 when the server does not know the model", async () => {
    const server = await startScriptedModel([
      {
        kind: "json",
        status: 404,
        body: { error: { message: "model 'test-model' not found", type: "not_found_error" } },
      },
    ]);
    const home = tempDir();
    writeFileSync(join(home, "config.json"), JSON.stringify({ retry: { maxRetries: 0 } }));
    const result = await runTern(["run", "hi"], {
      env: scriptedModelEnv(server, { TERN_HOME: home }),
      cwd: tempDir(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split("\n").at(-1)).toMatch(
      /^tern: llamacpp does not know model "test-model" .*check --model/,
    );
  });

  it("--debug adds the stack trace to an internal error only when asked", async () => {
    const result = await runTern(["sessions", "show", "../../etc", "--debug"], {
      env: ternEnv({ TERN_HOME: tempDir() }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^tern: invalid session id/);
    expect(result.stderr).toMatch(/\n\s+at /);
  });
});
