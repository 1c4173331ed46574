// Issue 28: nothing tern prints carries a key. The key passed with --api-key comes back in every
// way it can: a provider's 401 body echoes it raw and percent-encoded, a bash tool prints it raw,
// as base64 and base64url at three alignments and percent-encoded, and the model's answer repeats
// it, raw and base64, cut across its streamed deltas. Every output path is then read for the key
// and each encoding of it (test/support/key-leaks.ts, which decodes, so cut edges hide nothing):
// stdout and stderr of `tern run` (plain and --json), the session files, the cassette, `tern
// sessions export --cassette`, the OTLP spans (content captured), and `tern serve`'s SSE stream,
// its HTTP session view (what the web page reads) and JSON-RPC events.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient, RuntimeConnection, type SessionEvent } from "@github/copilot-sdk";
import type { ScriptStep } from "@tern/ai/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { keyLeaks } from "../../ai/test/support/key-leaks.js";
import { startOtlpReceiver } from "./support/otlp-receiver.js";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { JSON_TYPE, openSession, sseReader, startServe } from "./support/serve.js";
import { ensureBuilt, runTern, runTernProcess, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

/** No known key shape, in no variable: only the registered --api-key can catch it. */
const KEY = "tern-test-key-Zq81/mXv07+Lp9Yw";
const PERCENT = encodeURIComponent(KEY);
const base64 = (text: string) => Buffer.from(text).toString("base64");

/** A bash command that prints the key in every encoding a tool might. */
const PRINT_KEY = [
  `k='${KEY}'`,
  `echo "raw $k"`,
  `printf %s "$k" | base64`,
  `printf 'x%s' "$k" | base64`,
  `printf 'xy%s' "$k" | base64`,
  `printf %s "$k" | base64 | tr '+/' '-_' | tr -d '='`,
  `printf 'x%s' "$k" | base64 | tr '+/' '-_' | tr -d '='`,
  `echo 'pct ${PERCENT}'`,
].join("; ");

/** The model runs the command, then answers with the key raw and base64, five characters a delta. */
function echoingModel(): ScriptStep[] {
  return [
    toolReply([{ name: "bash", args: { command: PRINT_KEY } }]),
    textReply(`answer ${KEY} and ${base64(KEY)} done`, { chunkSize: 5 }),
  ];
}

/** A provider that refuses the key and echoes it, raw and percent-encoded. */
function refusingModel(): ScriptStep[] {
  const message = `Incorrect API key provided: ${KEY}. See https://keys.example/?key=${PERCENT}`;
  return [{ kind: "json", status: 401, body: { error: { message, type: "invalid_request_error" } } }];
}

function filesUnder(dir: string, suffix: string): string {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(suffix))
    .map((name) => readFileSync(join(dir, name), "utf8"))
    .join("\n");
}

/** Every output of one `tern run` (and of exporting its cassette), by name. */
async function runOutputs(replies: ScriptStep[], flags: string[]): Promise<Record<string, string>> {
  const server = await startScriptedModel(replies);
  const receiver = await startOtlpReceiver();
  const home = tempDir();
  const work = tempDir();
  const cassette = join(tempDir(), "run.jsonl");
  writeFileSync(join(home, "config.json"), JSON.stringify({ retry: { maxRetries: 0 } }));
  const env = scriptedModelEnv(server, {
    TERN_HOME: home,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    TERN_OTEL_CAPTURE_CONTENT: "1",
  });
  try {
    const args = ["run", "--api-key", KEY, "--mode", "bypass", "--sandbox", "off", "--record", cassette];
    // A real process: tracing registers OpenTelemetry's process-wide provider (runtime/otel-sdk.ts).
    const result = await runTernProcess([...args, ...flags, "go"], { env, cwd: work });
    // The key really went out, so a clean output is the redactor's doing.
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    const listed = await runTern(["sessions", "ls", "--json"], { env, cwd: work });
    const id = (JSON.parse(listed.stdout) as { id: string }[])[0]!.id;
    const exported = await runTern(["sessions", "export", id, "--cassette"], { env, cwd: work });
    expect(exported.code).toBe(0);
    return {
      stdout: result.stdout,
      stderr: result.stderr,
      "session file": filesUnder(join(home, "sessions"), ".jsonl"),
      cassette: readFileSync(cassette, "utf8"),
      "sessions export --cassette": exported.stdout,
      "OTLP spans": Buffer.concat(receiver.requests.map((request) => request.body)).toString("utf8"),
    };
  } finally {
    await receiver.close();
  }
}

/** Several tern processes a test (run, ls, export; serve): a ceiling for hangs on a loaded machine, not a speed check. */
const HANG_CEILING_MS = 180_000;

/** A run may say nothing on one of these (a --json run's stderr, a failed run's stdout). */
const MAY_BE_EMPTY = new Set(["stdout", "stderr"]);

/** The outputs of a scenario, checked path by path. */
function expectClean(outputs: Record<string, string>): void {
  for (const [path, text] of Object.entries(outputs)) {
    if (!MAY_BE_EMPTY.has(path)) expect(text.length, `${path} is empty`).toBeGreaterThan(0);
    expect(keyLeaks(text, KEY), path).toEqual([]);
  }
}

describe("a key in every output of tern run", () => {
  it.each([
    ["plain", []],
    ["--json", ["--json"]],
  ])(
    "%s: a tool prints it in each encoding and the answer streams it across deltas",
    async (_name, flags) => {
      const outputs = await runOutputs(echoingModel(), flags);
      expectClean(outputs);
      // The outputs still say what happened, with the marker where the key was.
      expect(outputs.stdout).toContain("answer [REDACTED] and [REDACTED]");
      expect(outputs["session file"]).toContain("raw [REDACTED]");
      expect(outputs.cassette).toContain("raw [redacted]");
    },
    HANG_CEILING_MS,
  );

  it.each([
    ["plain", []],
    ["--json", ["--json"]],
  ])(
    "%s: a provider's 401 body echoes it raw and percent-encoded",
    async (name, flags) => {
      const outputs = await runOutputs(refusingModel(), flags);
      expectClean(outputs);
      if (name === "plain")
        expect(outputs.stderr).toMatch(/refused the API key \(401 Incorrect API key provided: \[REDACTED\]/);
      else expect(outputs.stdout).toMatch(/"errorMessage":"401 Incorrect API key provided: \[REDACTED\]/);
      expect(outputs["session file"]).toContain("?key=[REDACTED]");
    },
    HANG_CEILING_MS,
  );
});

describe("a key in what tern serve sends", () => {
  it(
    "reaches no SSE frame, HTTP session view or JSON-RPC event",
    async () => {
      const server = await startScriptedModel([...echoingModel(), ...echoingModel()]);
      const home = tempDir();
      const served = await startServe(
        [
          ...["--port", "0", "--rpc-port", "0", "--api-key", KEY, "--home", home, "--cwd", tempDir()],
          ...["--mode", "bypass", "--sandbox", "off"],
        ],
        scriptedModelEnv(server, { TERN_HOME: home }),
      );
      const id = await openSession(served.base);
      const reply = await fetch(`${served.base}/api/sessions/${id}/messages`, {
        method: "POST",
        headers: JSON_TYPE,
        body: JSON.stringify({ content: "go" }),
      });
      const frames = await sseReader(reply).all();
      // What the web page reads when it opens the session: the messages, tool output included.
      const view = await (await fetch(`${served.base}/api/sessions/${id}`)).text();
      const listed = await (await fetch(`${served.base}/api/sessions`)).text();
      const client = new CopilotClient({
        connection: RuntimeConnection.forUri(`127.0.0.1:${served.rpcPort}`),
      });
      const events: SessionEvent[] = [];
      try {
        const session = await client.createSession({ onPermissionRequest: () => ({ kind: "approve-once" }) });
        session.on((event) => events.push(event));
        await session.sendAndWait({ prompt: "go" }, 120_000);
      } finally {
        await client.stop();
      }
      expect(server.requests.map((request) => request.headers.authorization)).toEqual(
        Array(4).fill(`Bearer ${KEY}`),
      );
      const sse = JSON.stringify(frames);
      const rpc = JSON.stringify(events);
      expectClean({
        "SSE frames": sse,
        "the session's HTTP view": view,
        "the session list": listed,
        "JSON-RPC events": rpc,
        "serve's stdout and stderr": served.proc.stdout + served.proc.stderr,
      });
      expect(view).toContain("raw [REDACTED]");
      expect(sse).toContain("raw [REDACTED]");
      expect(rpc).toContain("answer [REDACTED] and [REDACTED]");
    },
    HANG_CEILING_MS,
  );
});
