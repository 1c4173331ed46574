// Cassettes: a real provider stream recorded through the transport against a loopback server,
// replayed with no server byte for byte; secrets kept out of the file; every bad cassette and
// every unrecorded request refused with a message that says where.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CassetteError, readCassette } from "../src/cassette/format.js";
import { recordCassette } from "../src/cassette/record.js";
import { replayCassette } from "../src/cassette/replay.js";
import { streamOpenAICompletions } from "../src/providers/openai-completions.js";
import { type ScriptServer, serveScript } from "../src/testing/index.js";
import type { Context, ModelFetch } from "../src/types.js";
import { fixtureText } from "./support/fixtures.js";
import { keyLeaks } from "./support/key-leaks.js";
import { collect, completionsModel } from "./support/provider-harness.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function tempFile(name = "c.jsonl"): string {
  const dir = mkdtempSync(join(tmpdir(), "tern-cassette-"));
  dirs.push(dir);
  return join(dir, name);
}

const REAL_STREAM = fixtureText("openai-completions/anthropic-fallback-tool-call.sse");
/** A captured stream turned into a committed cassette (regenerate with TERN_RECORD_CASSETTES=1). */
const COMMITTED = fileURLToPath(
  new URL("./fixtures/cassettes/anthropic-fallback-tool-call.jsonl", import.meta.url),
);
const SECRET = "sk-test-0123456789abcdef";

const ask = (text: string): Context => ({ messages: [{ role: "user", content: text, timestamp: 1 }] });

/** Offsets of every SSE event boundary: the server writes the capture event by event. */
function eventOffsets(body: string): number[] {
  const offsets: number[] = [];
  for (let at = body.indexOf("\n\n"); at !== -1; at = body.indexOf("\n\n", at + 2))
    offsets.push(Buffer.byteLength(body.slice(0, at + 2)));
  return offsets;
}

async function bodyOf(
  fetch: ModelFetch,
  url: string,
  body: unknown,
): Promise<{ chunks: string[]; status: number }> {
  const response = await fetch(url, { method: "POST", body: JSON.stringify(body) });
  const chunks: string[] = [];
  for await (const bytes of response.body!) chunks.push(Buffer.from(bytes).toString("utf8"));
  return { chunks, status: response.status };
}

describe("recording and replaying a real provider stream", () => {
  it("replays the captured bytes chunk for chunk and the provider builds the same message", async () => {
    server = await serveScript([{ kind: "sse", body: REAL_STREAM, chunks: eventOffsets(REAL_STREAM) }]);
    const path = tempFile();
    const recording = recordCassette(path, { placeholders: { cwd: "/home/someone/project" } });
    const live = await collect(
      streamOpenAICompletions,
      completionsModel(server.baseUrl),
      ask("read /home/someone/project/a.txt"),
      {
        apiKey: SECRET,
        fetch: recording.fetch,
      },
    );
    expect(live.message.stopReason).toBe("toolUse");
    expect(recording.recorded).toBe(1);
    await server.close();
    server = undefined;

    const cassette = readCassette(path);
    const exchange = cassette.exchanges[0]!;
    if (!("response" in exchange)) throw new Error("expected a response");
    expect(exchange.response.chunks.map((chunk) => ("text" in chunk ? chunk.text : "")).join("")).toBe(
      REAL_STREAM,
    );
    expect(JSON.stringify(exchange.request.body)).toContain("read {{cwd}}/a.txt");

    // Replayed elsewhere: another origin (nothing listens there) and another workspace path.
    const replay = replayCassette(path, { placeholders: { cwd: "/work/other" } });
    const again = await collect(
      streamOpenAICompletions,
      completionsModel("http://127.0.0.1:9"),
      ask("read /work/other/a.txt"),
      {
        apiKey: "another-key",
        fetch: replay.fetch,
      },
    );
    const { timestamp: _a, ...liveMessage } = live.message;
    const { timestamp: _b, ...replayedMessage } = again.message;
    expect(replayedMessage).toEqual(liveMessage);
    expect(again.events.map((event) => event.type)).toEqual(live.events.map((event) => event.type));
    expect(replay.served).toBe(1);
    expect(replay.unused).toBe(0);

    const bytes = await bodyOf(
      replayCassette(path, { placeholders: { cwd: "/x" } }).fetch,
      "http://h/v1/chat/completions",
      exchange.request.body,
    );
    expect(bytes.chunks.join("")).toBe(REAL_STREAM);
    // Chunk for chunk as the network delivered them while recording.
    expect(bytes.chunks).toEqual(
      exchange.response.chunks.map((chunk) => ("text" in chunk ? chunk.text : "")),
    );
  });

  it("the committed cassette of a captured stream replays to the expected message", async () => {
    if (process.env.TERN_RECORD_CASSETTES === "1") {
      server = await serveScript([{ kind: "sse", body: REAL_STREAM, chunks: eventOffsets(REAL_STREAM) }]);
      const recording = recordCassette(COMMITTED);
      await collect(streamOpenAICompletions, completionsModel(server.baseUrl), ask("Read a.txt"), {
        apiKey: "k",
        fetch: recording.fetch,
      });
    }
    const replay = replayCassette(COMMITTED);
    const { message } = await collect(
      streamOpenAICompletions,
      completionsModel("http://127.0.0.1:9"),
      ask("Read a.txt"),
      {
        apiKey: "k",
        fetch: replay.fetch,
      },
    );
    expect(message.content).toEqual([
      { type: "text", text: "Reading it." },
      { type: "toolCall", id: "toolu_sanitized", name: "read_file", arguments: { path: "a.txt" } },
    ]);
    expect(message.stopReason).toBe("toolUse");
  });
  it("replays with the recorded pacing when asked (same bytes)", async () => {
    const replay = replayCassette(COMMITTED, { timing: "real" });
    const exchange = readCassette(COMMITTED).exchanges[0]!;
    const bytes = await bodyOf(replay.fetch, "http://h/v1/chat/completions", exchange.request.body);
    expect(bytes.chunks.join("")).toBe(REAL_STREAM);
  });
});

/** The real fetch, its body handed on cut at these offsets (TCP may merge what a server writes apart). */
function cutAt(offsets: number[]): ModelFetch {
  return (async (input: string, init?: RequestInit) => {
    const real = await fetch(input, init);
    const bytes = new Uint8Array(await real.arrayBuffer());
    const edges = [0, ...offsets, bytes.length];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 1; i < edges.length; i++) controller.enqueue(bytes.slice(edges[i - 1], edges[i]));
        controller.close();
      },
    });
    return new Response(body, { status: real.status, headers: real.headers });
  }) as ModelFetch;
}

describe("what a cassette keeps", () => {
  it("never writes a key: headers, query string, body and response are all scrubbed", async () => {
    server = await serveScript([
      {
        kind: "json",
        status: 429,
        body: { error: { message: `slow down ${SECRET}` } },
        headers: { "retry-after": "7", "x-request-id": "req_1", "set-cookie": `s=${SECRET}` },
      },
    ]);
    const path = tempFile();
    const recording = recordCassette(path, { secrets: [SECRET] });
    const response = await recording.fetch(`${server.baseUrl}/v1/x?key=${SECRET}&api_key=${SECRET}&alt=sse`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${SECRET}`,
        "x-api-key": SECRET,
        "x-goog-api-key": SECRET,
        cookie: `session=${SECRET}`,
        "x-custom-token": SECRET,
        "content-type": "application/json",
      },
      body: JSON.stringify({ prompt: `my key is ${SECRET}` }),
    });
    expect(response.status).toBe(429);
    expect(await response.text()).toContain(SECRET); // the caller still sees what the server said
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain(SECRET);
    const exchange = readCassette(path).exchanges[0]!;
    expect(Object.keys(exchange.request.headers)).toEqual(["content-type"]);
    expect(exchange.request.url).toMatch(/key=%5Bredacted%5D&api_key=%5Bredacted%5D&alt=sse$/);
    if (!("response" in exchange)) throw new Error("expected a response");
    expect(exchange.response.headers).toEqual({
      "content-type": "application/json",
      "retry-after": "7",
      "x-request-id": "req_1",
    });
  });

  it("blanks the key's encodings in a response, a key cut between two chunks included", async () => {
    const spelled = [
      `raw ${SECRET}`,
      `percent ${encodeURIComponent(`${SECRET}/=`)}`,
      `base64 ${Buffer.from(`x:${SECRET}`).toString("base64")}`,
      `base64url ${Buffer.from(`xy${SECRET}`).toString("base64url")}`,
    ];
    const body = spelled.map((line) => `data: ${JSON.stringify({ line })}\n\n`).join("");
    // Each cut falls inside a spelling: the recorder reads the key in two pieces.
    const cuts = spelled.map((line) => body.indexOf(line) + line.length - 6);
    server = await serveScript([{ kind: "sse", body }]);
    const path = tempFile();
    const recording = recordCassette(path, { secrets: [`${SECRET}/=`, SECRET], fetch: cutAt(cuts) });
    const response = await recording.fetch(`${server.baseUrl}/v1/x`, { method: "POST", body: "{}" });
    expect(await response.text()).toBe(body); // the caller gets the bytes as sent
    const exchange = readCassette(path).exchanges[0]!;
    if (!("response" in exchange)) throw new Error("expected a response");
    const recorded = exchange.response.chunks.map((chunk) => ("text" in chunk ? chunk.text : "")).join("");
    expect(keyLeaks(recorded, SECRET)).toEqual([]);
    expect(recorded.match(/\[redacted\]/g)).toHaveLength(spelled.length);
  });

  it("records a refused connection and replays it as the same network failure", async () => {
    const path = tempFile();
    const recording = recordCassette(path);
    const unused = await serveScript();
    const url = `${unused.baseUrl}/v1/chat/completions`;
    await unused.close();
    const live = await collect(
      streamOpenAICompletions,
      { ...completionsModel(""), baseUrl: url.replace("/chat/completions", "") },
      ask("hi"),
      {
        apiKey: "k",
        fetch: recording.fetch,
        retry: { maxRetries: 0 },
      },
    );
    const replayed = await collect(
      streamOpenAICompletions,
      { ...completionsModel(""), baseUrl: url.replace("/chat/completions", "") },
      ask("hi"),
      {
        apiKey: "k",
        fetch: replayCassette(path).fetch,
        retry: { maxRetries: 0 },
      },
    );
    expect(live.message.errorKind).toBe("network");
    expect(replayed.message.errorKind).toBe("network");
    expect(replayed.message.errorMessage).toBe(live.message.errorMessage);
  });
});

describe("replay refuses what it cannot serve", () => {
  async function recorded(): Promise<string> {
    server = await serveScript([{ kind: "sse", body: REAL_STREAM }]);
    const path = tempFile();
    const recording = recordCassette(path);
    await collect(streamOpenAICompletions, completionsModel(server.baseUrl), ask("first question"), {
      apiKey: "k",
      fetch: recording.fetch,
    });
    return path;
  }

  it("a different request fails with the path of the first difference and both values", async () => {
    const path = await recorded();
    const { message } = await collect(
      streamOpenAICompletions,
      completionsModel("http://127.0.0.1:9"),
      ask("first questions"),
      {
        apiKey: "k",
        fetch: replayCassette(path).fetch,
      },
    );
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain(
      'replay mismatch at request.body.messages[0].content (at character 14): expected: "first question", actual: "first questions"',
    );
    expect(message.errorMessage).toContain("request 1 (POST /v1/chat/completions) vs exchange 1 of cassette");
  });

  it("volatile tool output (durations, timestamps, temp paths, pids) matches; other text still differs", async () => {
    server = await serveScript([{ kind: "sse", body: REAL_STREAM }]);
    const path = tempFile();
    const output = (ms: string, when: string, tmp: string, pid: number, verdict: string) =>
      `# tests 3\n# pass 3\n# duration_ms ${ms}\nok 1 parses (${ms.split(".")[0]}ms) at ${when} in ${tmp}/out.txt, pid ${pid}: ${verdict}`;
    const recording = recordCassette(path);
    await collect(
      streamOpenAICompletions,
      completionsModel(server.baseUrl),
      ask(output("12.34", "2026-11-30T10:00:00.123Z", "/tmp/tern-a1b2", 4242, "all green")),
      { apiKey: "k", fetch: recording.fetch },
    );
    const again = ask(output("98.7", "2026-12-01T23:59:59Z", "/tmp/tern-zz99", 77, "all green"));
    const replayed = await collect(streamOpenAICompletions, completionsModel("http://h"), again, {
      apiKey: "k",
      fetch: replayCassette(path).fetch,
    });
    expect(replayed.message.stopReason).toBe("toolUse");

    const exact = await collect(streamOpenAICompletions, completionsModel("http://h"), again, {
      apiKey: "k",
      fetch: replayCassette(path, { normalizers: [] }).fetch,
    });
    expect(exact.message.errorMessage).toContain("replay mismatch at request.body.messages[0].content");

    const wrong = ask(output("5.5", "2026-12-01T00:00:00Z", "/tmp/x", 1, "one red"));
    const failed = await collect(streamOpenAICompletions, completionsModel("http://h"), wrong, {
      apiKey: "k",
      fetch: replayCassette(path).fetch,
    });
    expect(failed.message.errorMessage).toMatch(
      /replay mismatch at request\.body\.messages\[0\]\.content \(at character \d+\): expected: ".*all green", actual: ".*one red"/,
    );
  });

  it("a request past the end of the cassette says none is left", async () => {
    const path = await recorded();
    const replay = replayCassette(path);
    const first = await collect(
      streamOpenAICompletions,
      completionsModel("http://h"),
      ask("first question"),
      {
        apiKey: "k",
        fetch: replay.fetch,
      },
    );
    expect(first.message.stopReason).toBe("toolUse");
    const second = await collect(
      streamOpenAICompletions,
      completionsModel("http://h"),
      ask("first question"),
      {
        apiKey: "k",
        fetch: replay.fetch,
      },
    );
    expect(second.message.errorMessage).toContain("has no recorded exchange left (all 1 used)");
  });

  it("with miss: record, an unrecorded request goes to the provider and is appended", async () => {
    const path = await recorded();
    server!.push({ kind: "sse", body: REAL_STREAM });
    const replay = replayCassette(path, { miss: "record" });
    const { message } = await collect(
      streamOpenAICompletions,
      completionsModel(server!.baseUrl),
      ask("second question"),
      {
        apiKey: "k",
        fetch: replay.fetch,
      },
    );
    expect(message.stopReason).toBe("toolUse");
    expect(replay.appended).toBe(1);
    expect(server!.requests).toHaveLength(2);
    expect(readCassette(path).exchanges).toHaveLength(2);
  });

  it.each([
    ["a missing file", undefined, "missing", /no such file/],
    ["an empty file", "", "corrupt", /line 1: empty file/],
    [
      "a corrupt line",
      `{"format":"tern-cassette","version":1,"created":"x"}\n{"request": nope}\n`,
      "corrupt",
      /line 2: not JSON/,
    ],
    [
      "a line that is not an exchange",
      `{"format":"tern-cassette","version":1,"created":"x"}\n{"request":{"method":"POST","url":"u","headers":{}}}\n`,
      "corrupt",
      /line 2: not an exchange: neither a response nor a failure/,
    ],
    ["another format", `{"hello":1}\n`, "corrupt", /line 1: not a cassette header/],
    [
      "a newer version",
      `{"format":"tern-cassette","version":2,"created":"x"}\n`,
      "version",
      /version 2 is not supported \(this tern reads version 1\)/,
    ],
  ])("%s is a CassetteError naming the problem", (_name, content, reason, pattern) => {
    const path = tempFile();
    if (content !== undefined) writeFileSync(path, content);
    let caught: unknown;
    try {
      replayCassette(path);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CassetteError);
    expect((caught as CassetteError).reason).toBe(reason);
    expect((caught as CassetteError).message).toMatch(pattern);
    expect((caught as CassetteError).message).toContain(path);
  });

  it("a cassette that cannot be written is a CassetteError at once", () => {
    expect(() => recordCassette(join(tempFile(), "nope", "c.jsonl"))).toThrow(/cannot write cassette/);
  });
});
