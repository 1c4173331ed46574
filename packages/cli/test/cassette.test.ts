// `tern run --record` / `--replay` end to end: the real bundle against the scripted loopback model
// once, then with no server at all. The committed cassettes under fixtures/cassettes were recorded
// from these scenarios (TERN_RECORD_CASSETTES=1 npx vitest run packages/cli/test/cassette.test.ts
// records them again) and must replay to the output they recorded.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ScriptStep, typedSse } from "@tern/ai/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { textReply, toolReply } from "./support/replies.js";
import { startScriptedModel } from "./support/scripted-model.js";
import { promptNewSession, startServe } from "./support/serve.js";
import { ensureBuilt, runTern, tempDir, ternEnv } from "./support/tern.js";

beforeAll(ensureBuilt);

const FIXTURES = fileURLToPath(new URL("./fixtures/cassettes/", import.meta.url));
const CAPTURES = new URL("../../ai/test/fixtures/provider-streams/", import.meta.url);

/** The payload lines of one of @tern/ai's captured provider streams. */
function capturedLines(path: string): string[] {
  return readFileSync(new URL(path, CAPTURES), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
}
/** Nothing listens here: a replay that tried the network would fail. */
const NOWHERE = "http://127.0.0.1:9/v1";
const KEY = "sk-cassette-test-0123456789";

interface Scenario {
  name: string;
  args: string[];
  replies: () => ScriptStep[];
  /** Files the workspace starts with. */
  files?: Record<string, string>;
  /** What the workspace holds afterwards. */
  after?: Record<string, string>;
}

const SCENARIOS: Scenario[] = [
  {
    name: "text-answer",
    args: ["What is the answer?"],
    replies: () => [textReply("The answer is 42.")],
  },
  {
    name: "tools",
    args: [
      "--allow-tool",
      "bash(cat:*)",
      "--allow-tool",
      "bash(wc:*)",
      "--mode",
      "accept-edits",
      "Look at src",
    ],
    files: { "src/a.txt": "alpha\n", "src/b.txt": "beta\n" },
    replies: () => [
      toolReply(
        [
          { name: "read", args: { path: "src/a.txt" }, id: "call_a" },
          { name: "read", args: { path: "src/b.txt" }, id: "call_b" },
        ],
        { text: "Reading both files." },
      ),
      toolReply([{ name: "bash", args: { command: "cat src/a.txt src/b.txt | wc -l" }, id: "call_c" }]),
      toolReply([
        {
          name: "edit",
          args: { path: "src/a.txt", edits: [{ oldText: "alpha", newText: "ALPHA" }] },
          id: "call_d",
        },
      ]),
      textReply("Done."),
      textReply("Both files read; a.txt now says ALPHA."),
    ],
    after: { "src/a.txt": "ALPHA\n" },
  },
];

function workspace(scenario: Scenario): string {
  const work = tempDir();
  for (const [path, text] of Object.entries(scenario.files ?? {})) {
    mkdirSync(join(work, path, ".."), { recursive: true });
    writeFileSync(join(work, path), text);
  }
  return work;
}

function env(home: string, baseUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return ternEnv({
    TERN_HOME: home,
    TERN_PROVIDER: "llamacpp",
    TERN_MODEL: "test-model",
    TERN_BASE_URL: baseUrl,
    ...extra,
  });
}

/** Runs the scenario against the scripted server, recording to `cassette`. */
async function record(scenario: Scenario, cassette: string) {
  const server = await startScriptedModel(scenario.replies());
  const home = tempDir();
  const work = workspace(scenario);
  const result = await runTern(["run", "--record", cassette, "--api-key", KEY, ...scenario.args], {
    env: env(home, `${server.baseUrl}/v1`),
    cwd: work,
  });
  await server.close();
  return { result, home, work };
}

async function replay(scenario: Scenario, cassette: string, extra: string[] = []) {
  const home = tempDir();
  const work = workspace(scenario);
  const result = await runTern(["run", "--replay", cassette, ...extra, ...scenario.args], {
    env: env(home, NOWHERE),
    cwd: work,
  });
  return { result, home, work };
}

function expectWorkspace(work: string, scenario: Scenario): void {
  for (const [path, text] of Object.entries(scenario.after ?? {}))
    expect(readFileSync(join(work, path), "utf8")).toBe(text);
}

describe.each(SCENARIOS)("cassette scenario $name", (scenario) => {
  it("the committed cassette replays with no network to the output it recorded", async () => {
    const cassette = join(FIXTURES, `${scenario.name}.jsonl`);
    const expected = join(FIXTURES, `${scenario.name}.stdout`);
    if (process.env.TERN_RECORD_CASSETTES === "1") {
      const { result } = await record(scenario, cassette);
      expect(result.code, result.stderr).toBe(0);
      writeFileSync(expected, result.stdout);
    }
    const { result, work } = await replay(scenario, cassette);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(readFileSync(expected, "utf8"));
    expectWorkspace(work, scenario);
  });

  it("a fresh recording replays elsewhere to identical output, without the key in the file", async () => {
    const cassette = join(tempDir(), "run.jsonl");
    const live = await record(scenario, cassette);
    expect(live.result.code, live.result.stderr).toBe(0);
    expect(readFileSync(cassette, "utf8")).not.toContain(KEY);
    const again = await replay(scenario, cassette, ["--replay-timing", "real"]);
    expect(again.result.code, again.result.stderr).toBe(0);
    expect(again.result.stdout).toBe(live.result.stdout);
    expectWorkspace(again.work, scenario);
  });
});

describe("sessions export --cassette", () => {
  it("writes the cassette a session was recorded with; a session without one is a usage error", async () => {
    const cassette = join(tempDir(), "bug.jsonl");
    const { result, home, work } = await record(SCENARIOS[0]!, cassette);
    expect(result.code, result.stderr).toBe(0);
    const listed = await runTern(["sessions", "ls", "--json"], { env: env(home, NOWHERE), cwd: work });
    const id = (JSON.parse(listed.stdout) as { id: string }[])[0]!.id;
    const out = join(tempDir(), "attached.jsonl");
    const exported = await runTern(["sessions", "export", id, "--cassette", "-o", out], {
      env: env(home, NOWHERE),
      cwd: work,
    });
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(readFileSync(cassette, "utf8"));

    // The replayed session notes its cassette too; a plain run's session has none.
    const server = await startScriptedModel([textReply("plain")]);
    const plainHome = tempDir();
    await runTern(["run", "hi"], { env: env(plainHome, `${server.baseUrl}/v1`), cwd: work });
    const plain = JSON.parse(
      (await runTern(["sessions", "ls", "--json"], { env: env(plainHome, NOWHERE), cwd: work })).stdout,
    );
    const none = await runTern(["sessions", "export", plain[0].id, "--cassette"], {
      env: env(plainHome, NOWHERE),
      cwd: work,
    });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/has no cassette: record one with tern run --record FILE/);
  });
});

describe("tern serve --record / --replay", () => {
  /** One served session, one prompt: the run's final answer. */
  async function answer(base: string): Promise<unknown> {
    const frames = await promptNewSession(base, "hello there");
    return frames.find((frame) => frame.event === "done")?.data.answer;
  }

  it("a served session recorded once replays with no model server", async () => {
    const model = await startScriptedModel([textReply("Served answer.")]);
    const cassette = join(tempDir(), "serve.jsonl");
    const common = ["--port", "0", "--model", "scripted", "--cwd", tempDir()];
    const live = await startServe([
      ...common,
      "--base-url",
      model.providerUrl,
      "--home",
      tempDir(),
      "--record",
      cassette,
    ]);
    expect(await answer(live.base)).toBe("Served answer.");
    live.proc.child.kill();
    await live.proc.done;
    await model.close();
    expect(readFileSync(cassette, "utf8").trim().split("\n")).toHaveLength(2);

    const replayed = await startServe([
      ...common,
      "--base-url",
      NOWHERE,
      "--home",
      tempDir(),
      "--replay",
      cassette,
    ]);
    expect(await answer(replayed.base)).toBe("Served answer.");
  });

  it("a served Responses API session puts its id in as {{session}}, replays, and exports its cassette", async () => {
    // The Responses API sends the session id as prompt_cache_key: a replay's new session has another.
    const stream = typedSse(capturedLines("openai-responses/openai-phase.1.chunks.txt"));
    const server = await startScriptedModel([{ kind: "sse", body: stream }]);
    const cassette = join(tempDir(), "responses.jsonl");
    const home = tempDir();
    const common = ["--port", "0", "--provider", "openai", "--model", "responses-test", "--cwd", tempDir()];
    const live = await startServe([
      ...common,
      "--base-url",
      `${server.baseUrl}/v1`,
      "--api-key",
      KEY,
      "--home",
      home,
      "--record",
      cassette,
    ]);
    const recorded = await answer(live.base);
    expect(recorded).toEqual(expect.any(String));
    live.proc.child.kill();
    await live.proc.done;
    const sent = server.requests[0]!.body as { prompt_cache_key?: string };
    expect(sent.prompt_cache_key).toEqual(expect.any(String));
    const text = readFileSync(cassette, "utf8");
    expect(text).toContain('"prompt_cache_key":"{{session}}"');
    expect(text).not.toContain(sent.prompt_cache_key);

    const exported = await runTern(["sessions", "export", sent.prompt_cache_key!, "--cassette"], {
      env: env(home, NOWHERE),
      cwd: tempDir(),
    });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toBe(text);

    const replayed = await startServe([
      ...common,
      "--base-url",
      NOWHERE,
      "--home",
      tempDir(),
      "--replay",
      cassette,
    ]);
    expect(await answer(replayed.base)).toBe(recorded);
  });
});

describe("bad cassettes and unrecorded requests", () => {
  const header = `{"format":"tern-cassette","version":1,"created":"2026-01-01T00:00:00.000Z"}\n`;
  const bad = (content: string) => {
    const path = join(tempDir(), "bad.jsonl");
    writeFileSync(path, content);
    return path;
  };

  it.each([
    ["a missing file", () => join(tempDir(), "none.jsonl"), /--replay: cassette .*none\.jsonl: no such file/],
    [
      "a corrupt line",
      () => bad(`${header}{"request":\n`),
      /--replay: cassette .*bad\.jsonl line 2: not JSON/,
    ],
    [
      "another version",
      () => bad(`{"format":"tern-cassette","version":9,"created":"x"}\n`),
      /version 9 is not supported/,
    ],
  ])("%s: exit 2 before any run", async (_name, path, message) => {
    const home = tempDir();
    const result = await runTern(["run", "--replay", path(), "hi"], {
      env: env(home, NOWHERE),
      cwd: tempDir(),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(existsSync(join(home, "sessions"))).toBe(false);
  });

  it.each([
    [["--record", "a.jsonl", "--replay", "b.jsonl"], /--record and --replay cannot be used together/],
    [["--replay-timing", "real"], /--replay-timing needs --replay FILE/],
    [
      ["--replay", join(FIXTURES, "text-answer.jsonl"), "--replay-miss", "sometimes"],
      /--replay-miss must be one of fail, record/,
    ],
    [
      ["--record", "/no/such/dir/c.jsonl"],
      /--record \/no\/such\/dir\/c\.jsonl: its directory does not exist/,
    ],
  ])("flags %j: exit 2", async (flags, message) => {
    const result = await runTern(["run", ...flags, "hi"], { env: env(tempDir(), NOWHERE), cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it.each(["chat", "serve"])(
    "tern %s takes the same flags: a missing cassette is exit 2",
    async (command) => {
      const result = await runTern([command, "--replay", "missing.jsonl"], {
        env: env(tempDir(), NOWHERE),
        cwd: tempDir(),
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--replay: cassette .*missing\.jsonl: no such file/);
    },
  );

  it("with --replay-miss record, an unrecorded request goes to the model and is appended", async () => {
    const cassette = join(tempDir(), "grow.jsonl");
    copyFileSync(join(FIXTURES, "text-answer.jsonl"), cassette);
    const server = await startScriptedModel([textReply("A new answer.")]);
    const result = await runTern(["run", "--replay", cassette, "--replay-miss", "record", "What is new?"], {
      env: env(tempDir(), `${server.baseUrl}/v1`),
      cwd: tempDir(),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("A new answer.\n");
    expect(readFileSync(cassette, "utf8").trim().split("\n")).toHaveLength(3);
  });

  it("a request the cassette does not hold fails the run (exit 1) with the first difference", async () => {
    const result = await runTern(
      ["run", "--replay", join(FIXTURES, "text-answer.jsonl"), "What is the question?"],
      {
        env: env(tempDir(), NOWHERE),
        cwd: tempDir(),
      },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'replay mismatch at request.body.messages[1].content (at character 12): expected: "What is the answer?", actual: "What is the question?"; request 1 (POST /v1/chat/completions) vs exchange 1',
    );
  });
});
