// The clis bench's server-side checks, over real loopback HTTP: the scripted server asks for
// the files in order with the tool the request offers, answers once every file came back, and
// refuses a request whose tool results are missing. Plus the parsing of /usr/bin/time's line.
import { afterEach, describe, expect, it } from "vitest";
import { ratioInRounds } from "../src/clis/bench.js";
import { type ModelServer, readCall, startModelServer } from "../src/clis/model-server.js";
import { type CliRun, parseTime } from "../src/clis/run-cli.js";
import { FILES, makeTask, turnOf } from "../src/clis/task.js";

const task = makeTask("t3st");
const readTool = {
  type: "function",
  function: {
    name: "read",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
};

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The streamed text and tool arguments of a Chat Completions SSE body, each joined. */
function parseChat(body: string): { content: string; args: string } {
  const deltas = body
    .split("\n")
    .filter((line) => line.startsWith("data: {"))
    .map((line) => JSON.parse(line.slice(6)).choices[0]?.delta ?? {});
  return {
    content: deltas.map((d) => d.content ?? "").join(""),
    args: deltas.map((d) => d.tool_calls?.[0]?.function?.arguments ?? "").join(""),
  };
}

async function chat(port: number, messages: unknown[]): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ model: "m", stream: true, tools: [readTool], messages }),
  });
  return { status: response.status, text: await response.text() };
}

describe("clis task and server", () => {
  it("counts the turn from the markers present, and refuses markers out of order", () => {
    expect(turnOf(task, "no markers")).toBe(0);
    expect(
      turnOf(
        task,
        task.files
          .slice(0, 3)
          .map((f) => f.marker)
          .join(" "),
      ),
    ).toBe(3);
    expect(turnOf(task, task.files.map((f) => f.marker).join(" "))).toBe(FILES);
    expect(turnOf(task, `${task.files[0]!.marker} ${task.files[2]!.marker}`)).toBeUndefined();
  });

  it("reads with a read tool when offered, else with a shell cat shaped by the schema", () => {
    expect(readCall([{ name: "Read", schema: { properties: { file_path: {} } } }], "/w/a.txt")).toEqual({
      name: "Read",
      args: { file_path: "/w/a.txt" },
    });
    expect(
      readCall([{ name: "shell", schema: { properties: { command: { type: "array" } } } }], "/w/a.txt"),
    ).toEqual({
      name: "shell",
      args: { command: ["cat", "/w/a.txt"] },
    });
    expect(
      readCall([{ name: "exec_command", schema: { properties: { cmd: { type: "string" } } } }], "/w/a b"),
    ).toEqual({
      name: "exec_command",
      args: { cmd: 'cat "/w/a b"' },
    });
    expect(readCall([{ name: "write", schema: {} }], "/w/a.txt")).toBeUndefined();
  });

  it("plays five reads then the answer, and only answers once every file came back", async () => {
    server = await startModelServer(task, "/work/dir", "m");
    const messages: unknown[] = [{ role: "user", content: task.prompt }];
    for (let k = 0; k < FILES; k++) {
      const reply = await chat(server.port, messages);
      expect(reply.status).toBe(200);
      expect(JSON.parse(parseChat(reply.text).args)).toEqual({ path: `/work/dir/notes-${k}.txt` });
      messages.push({ role: "tool", content: task.files[k]!.text });
    }
    const answer = await chat(server.port, messages);
    expect(parseChat(answer.text).content).toBe(task.answer);
    expect(server.log).toMatchObject({ turns: 6, answered: true, problems: [] });
    expect(server.log.firstRequestNs).toBeTypeOf("bigint");
  });

  it("refuses a request whose earlier tool result is missing, and records why", async () => {
    server = await startModelServer(task, "/work/dir", "m");
    const reply = await chat(server.port, [{ role: "tool", content: task.files[1]!.text }]);
    expect(reply.status).toBe(400);
    expect(server.log.answered).toBe(false);
    expect(server.log.problems[0]).toMatch(/tool result did not come back/);
  });

  it("answers unknown paths 404 and lists them", async () => {
    server = await startModelServer(task, "/work/dir", "m");
    const response = await fetch(`http://127.0.0.1:${server.port}/v1/nowhere`, {
      method: "POST",
      body: "{}",
    });
    expect(response.status).toBe(404);
    expect(server.log.unknown).toEqual(["POST /v1/nowhere"]);
  });

  it("reads /usr/bin/time's last line as CPU ms and max RSS, and nothing else", () => {
    expect(parseTime("1.25 0.50 204800\n")).toEqual({ cpuMs: 1750, maxRssKiB: 204800 });
    expect(parseTime("Command exited with non-zero status 1\n0.10 0.02 5000")).toEqual({
      cpuMs: 120,
      maxRssKiB: 5000,
    });
    expect(parseTime("garbage")).toBeUndefined();
  });
});

describe("ratios against the reference CLI", () => {
  const run = (firstRequestMs: number): CliRun => ({
    ok: true,
    wallMs: firstRequestMs * 2,
    firstRequestMs,
    treeRssMiB: 100,
    modelCalls: 6,
    auxiliaryCalls: 0,
    unknownPaths: [],
  });

  it("divides within each round, so a slow round weighs on both sides alike", () => {
    // Round 2 ran under load: both CLIs took 10x longer. Per round tern is 0.5x; the ratio of
    // the medians (1,000 / 1,000) would say 1.00x.
    const tern = [run(100), run(1_000), run(1_000)];
    const codex = [run(200), run(2_000), run(2_000)];
    expect(ratioInRounds(tern, codex, (r) => r.firstRequestMs)).toBe("0.5x [0.5 – 0.5]");
  });

  it("skips rounds where either run failed or has no figure", () => {
    const failed = { ok: false, error: "exit 1", unable: true } as const;
    const tern = [run(100), run(300), failed, run(50)];
    const codex = [run(200), failed, run(100), { ...run(100), firstRequestMs: undefined }];
    expect(ratioInRounds(tern, codex, (r) => r.firstRequestMs)).toBe("0.5x");
    expect(ratioInRounds([failed], codex, (r) => r.firstRequestMs)).toBe("-");
  });
});
