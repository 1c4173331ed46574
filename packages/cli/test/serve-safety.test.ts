// `tern serve` is safe to leave running: real requests against a real child process. Requests a
// hostile web page could make (another Host, another Origin, a text/plain body), a client's cwd
// outside the operator's roots, malformed input, half-open connections and a full run cap are
// all refused with a 4xx/503 JSON error that names no server path, and /healthz keeps answering.
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { basename, join } from "node:path";
import { type ScriptServer, serveScript } from "@tern/ai/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { textReply, toolReply } from "./support/replies.js";
import {
  JSON_TYPE,
  rawRequest,
  type Served,
  sseReader,
  startScriptedServe,
  startServe,
} from "./support/serve.js";
import { runTern, tempDir, ternEnv } from "./support/tern.js";

let model: ScriptServer;
let home: string;
let work: string;
let other: string;
let server: Served;

beforeAll(async () => {
  model = await serveScript();
  home = tempDir();
  work = tempDir();
  other = tempDir();
  server = await startScriptedServe(model.providerUrl, home, work, [
    ...["--allow-root", other, "--allow-origin", "http://good.example:3000"],
    ...["--max-connections", "8", "--max-runs", "1"],
  ]);
});

afterAll(async () => {
  await model.close();
});

async function healthy(): Promise<void> {
  const res = await fetch(`${server.base}/healthz`);
  expect(res.status).toBe(200);
}

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.base}${path}`, {
    method: "POST",
    headers: { ...JSON_TYPE, ...headers },
    body: JSON.stringify(body),
  });
}

/** The error body, checked for the things it must never say. */
async function errorOf(res: Response): Promise<{ code: string; message: string }> {
  const text = await res.text();
  expect(text).not.toContain(home);
  expect(text).not.toContain(work);
  expect(res.headers.get("content-type")).toContain("application/json");
  return (JSON.parse(text) as { error: { code: string; message: string } }).error;
}

describe("who may talk to it", () => {
  it("refuses a Host that is not the bound address or a loopback name (DNS rebinding)", async () => {
    const port = new URL(server.base).port;
    const evil = await rawRequest(server.base, "/api/sessions", {
      headers: { host: `evil.example:${port}` },
    });
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body).error.code).toBe("forbidden_host");
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`])
      expect((await rawRequest(server.base, "/healthz", { headers: { host } })).status).toBe(200);
    await healthy();
  });

  it("refuses cross-origin requests unless --allow-origin names the origin", async () => {
    const evil = await post("/api/sessions", {}, { origin: "http://evil.example" });
    expect(evil.status).toBe(403);
    expect((await errorOf(evil)).code).toBe("forbidden_origin");
    const nullOrigin = await post("/api/sessions", {}, { origin: "null" });
    expect(nullOrigin.status).toBe(403);
    const own = await post("/api/sessions", {}, { origin: server.base });
    expect(own.status).toBe(201);
    const good = await post("/api/sessions", {}, { origin: "http://good.example:3000" });
    expect(good.status).toBe(201);
    expect(good.headers.get("access-control-allow-origin")).toBe("http://good.example:3000");
    const preflight = await fetch(`${server.base}/api/sessions`, {
      method: "OPTIONS",
      headers: { origin: "http://good.example:3000", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("content-type");
  });

  it("reads only application/json bodies (no form or text/plain POST from a page)", async () => {
    for (const type of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    ]) {
      const res = await fetch(`${server.base}/api/sessions`, {
        method: "POST",
        headers: { "content-type": type },
        body: "{}",
      });
      expect(res.status).toBe(415);
    }
    await healthy();
  });
});

describe("where sessions may work", () => {
  it("takes --cwd by default and a cwd under --allow-root, and refuses any other (403)", async () => {
    const created = await post("/api/sessions", {});
    expect(((await created.json()) as { session: { cwd: string } }).session.cwd).toBe(work);
    mkdirSync(join(other, "sub"));
    expect((await post("/api/sessions", { cwd: join(other, "sub") })).status).toBe(201);
    for (const cwd of ["/", join(work, ".."), "/etc"]) {
      const res = await post("/api/sessions", { cwd });
      expect(res.status).toBe(403);
      expect((await errorOf(res)).code).toBe("forbidden");
    }
    // A link inside the workspace that leads out is judged by where it leads.
    symlinkSync("/", join(work, "escape"));
    expect((await post("/api/sessions", { cwd: join(work, "escape") })).status).toBe(403);
  });

  it("neither lists nor opens a stored session of another directory", async () => {
    model.push(textReply("Elsewhere."));
    const elsewhere = tempDir();
    const stored = await runTern(["run", "--base-url", model.providerUrl, "--model", "scripted", "hi"], {
      env: ternEnv({ TERN_HOME: home }),
      cwd: elsewhere,
    });
    expect(stored.code).toBe(0);
    const file = sessionFiles(home).find((path) => readFileSync(path, "utf8").includes(elsewhere))!;
    const id = basename(file, ".jsonl");
    const listed = (await (await fetch(`${server.base}/api/sessions`)).json()) as {
      sessions: { id: string }[];
    };
    expect(listed.sessions.map((s) => s.id)).not.toContain(id);
    for (const res of [
      await fetch(`${server.base}/api/sessions/${id}`),
      await post(`/api/sessions/${id}/messages`, { content: "go on" }),
      await fetch(`${server.base}/api/sessions/${id}`, { method: "DELETE" }),
    ]) {
      expect(res.status).toBe(403);
      expect(await res.text()).not.toContain(elsewhere);
    }
  });

  it("answers a cwd that does not exist with a 400 that names no server path", async () => {
    const res = await post("/api/sessions", { cwd: join(work, "missing") });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toMatch(/not an existing directory/);
  });
});

describe("client mistakes are 4xx JSON errors", () => {
  it("malformed percent-escapes, bad ids and unknown routes", async () => {
    const bad = await rawRequest(server.base, "/api/sessions/%E0%A4%A");
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).error.code).toBe("bad_path");
    expect((await fetch(`${server.base}/api/sessions/..%2F..%2Fetc`)).status).toBe(400);
    expect((await fetch(`${server.base}/api/sessions/no-such-session`)).status).toBe(404);
    expect((await fetch(`${server.base}/nope`)).status).toBe(404);
    await healthy();
  });

  it("names a session whose file is damaged (422), not its path", async () => {
    // A session stored by `tern run` (which has finished, so nothing holds it open), then damaged.
    model.push(textReply("Stored."));
    const stored = await runTern(
      ["run", "--base-url", model.providerUrl, "--model", "scripted", "store this"],
      {
        env: ternEnv({ TERN_HOME: home }),
        cwd: work,
      },
    );
    expect(stored.code).toBe(0);
    // The newest file: the sessions made over HTTP before are older (and open in the server).
    const [file] = sessionFiles(home).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
    const id = basename(file!, ".jsonl");
    const lines = readFileSync(file!, "utf8").split("\n");
    lines.splice(1, 0, "this is not a session line");
    writeFileSync(file!, lines.join("\n"));

    const res = await fetch(`${server.base}/api/sessions/${id}`);
    expect(res.status).toBe(422);
    const error = await errorOf(res);
    expect(error).toMatchObject({ code: "corrupt" });
    expect(error.message).toContain(id);
    const run = await post(`/api/sessions/${id}/messages`, { content: "go on" });
    expect(run.status).toBe(422);
    expect((await errorOf(run)).message).toContain(id);
    await healthy();
  });
});

describe("limits", () => {
  it("keeps answering /healthz with its connection cap full of half-open requests", async () => {
    const sockets: Socket[] = [];
    const url = new URL(server.base);
    try {
      for (let i = 0; i < 20; i++) {
        const socket = connect(Number(url.port), url.hostname);
        socket.on("error", () => {});
        await new Promise((resolve) => socket.once("connect", resolve));
        socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
        sockets.push(socket);
      }
      await healthy();
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  it("refuses a run beyond --max-runs with 503 and Retry-After, and runs it once there is room", async () => {
    // The first run waits on a permission question, so it is certainly still running.
    model.push(toolReply([{ id: "w1", name: "write", args: { path: "a.txt", content: "a" } }]));
    const first = (await (await post("/api/sessions", {})).json()) as { session: { id: string } };
    const stream = sseReader(
      await post(`/api/sessions/${first.session.id}/messages`, { content: "write a" }),
    );
    const question = await stream.until((frame) => frame.event === "permission");
    const second = (await (await post("/api/sessions", {})).json()) as { session: { id: string } };
    const refused = await post(`/api/sessions/${second.session.id}/messages`, { content: "hi" });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await errorOf(refused)).code).toBe("overloaded");
    await healthy();

    model.push(textReply("Denied, so I stop."), textReply("Second run."));
    await post(`/api/sessions/${first.session.id}/permissions/${question.data.id}`, { decision: "deny" });
    await stream.all();
    const frames = await sseReader(
      await post(`/api/sessions/${second.session.id}/messages`, { content: "hi" }),
    ).all();
    expect(frames.at(-1)).toMatchObject({ event: "done", data: { answer: "Second run." } });
  });
});

describe("size limits (small ones, set by flags)", () => {
  let small: Served;

  beforeAll(async () => {
    small = await serveBoth([
      ...["--max-body", "1000", "--max-session-streams", "1", "--max-message", "500", "--max-batch", "3"],
    ]);
  });

  it("answers a body over --max-body with 413, /healthz answering after", async () => {
    const res = await fetch(`${small.base}/api/sessions`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ name: "n".repeat(2000) }),
    });
    expect(res.status).toBe(413);
    expect(await errorOf(res)).toMatchObject({ code: "too_large" });
    expect((await fetch(`${small.base}/healthz`)).status).toBe(200);
  });

  it("refuses a second stream on a session over --max-session-streams with 429", async () => {
    model.push(toolReply([{ id: "w2", name: "write", args: { path: "b.txt", content: "b" } }]));
    const { session } = (await (
      await fetch(`${small.base}/api/sessions`, { method: "POST", headers: JSON_TYPE, body: "{}" })
    ).json()) as { session: { id: string } };
    const run = sseReader(
      await fetch(`${small.base}/api/sessions/${session.id}/messages`, {
        method: "POST",
        headers: JSON_TYPE,
        body: JSON.stringify({ content: "write b" }),
      }),
    );
    const question = await run.until((frame) => frame.event === "permission");
    const second = await fetch(`${small.base}/api/sessions/${session.id}/events`);
    expect(second.status).toBe(429);
    expect(second.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await errorOf(second)).code).toBe("too_many_streams");
    expect((await fetch(`${small.base}/healthz`)).status).toBe(200);
    model.push(textReply("Denied."));
    await fetch(`${small.base}/api/sessions/${session.id}/permissions/${question.data.id}`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ decision: "deny" }),
    });
    expect((await run.all()).at(-1)).toMatchObject({ event: "done" });
  });

  it("answers a JSON-RPC message over --max-message and a batch over --max-batch, then a ping", async () => {
    const socket = connect(small.rpcPort, "127.0.0.1");
    let text = "";
    const replies = (count: number) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          if ((text.match(/Content-Length/g) ?? []).length >= count) resolve(text);
        };
        socket.on("data", (chunk) => {
          text += chunk.toString();
          check();
        });
        socket.on("error", reject);
      });
    const done = replies(3);
    socket.write(
      Buffer.concat([
        frame({ jsonrpc: "2.0", id: 1, method: "ping", params: { message: "x".repeat(1000) } }),
        frame([1, 2, 3, 4].map((id) => ({ jsonrpc: "2.0", id, method: "ping" }))),
        frame({ jsonrpc: "2.0", id: 5, method: "ping" }),
      ]),
    );
    const all = await done;
    socket.destroy();
    expect(all).toMatch(
      /"id":1,"error":\{"code":-32600,"message":"Request too large: \d+ bytes, over the 500-byte limit/,
    );
    expect(all).toMatch(
      /"id":null,"error":\{"code":-32600,"message":"Invalid Request: a batch of 4 items is over the 3-item limit/,
    );
    expect(all).toContain('"id":5,"result":{"message":"pong"');
  });
});

describe("timeouts (short ones, set by flags)", () => {
  let quick: Served;

  beforeAll(async () => {
    quick = await serveBoth(["--request-timeout", "2", "--headers-timeout", "1", "--rpc-idle-timeout", "1"]);
  });

  /** Opens a raw socket to `port`, writes `bytes`, and resolves with what came back once the server closed it. */
  async function stalled(port: number, bytes: string): Promise<{ reply: string; closed: Promise<string> }> {
    const socket = connect(port, "127.0.0.1");
    socket.on("error", () => {});
    let reply = "";
    socket.on("data", (chunk) => {
      reply += chunk.toString();
    });
    const closed = new Promise<string>((resolve) => socket.once("close", () => resolve(reply)));
    await new Promise((resolve) => socket.once("connect", resolve));
    if (bytes) socket.write(bytes);
    return { reply, closed };
  }

  it("closes a connection whose headers never finish (--headers-timeout)", async () => {
    const port = Number(new URL(quick.base).port);
    const slow = await stalled(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
    expect(await slow.closed).toMatch(/^HTTP\/1\.1 408|^$/);
    expect((await fetch(`${quick.base}/healthz`)).status).toBe(200);
  });

  it("answers 408 and closes a connection whose body stalls (--request-timeout), /healthz answering meanwhile", async () => {
    const port = Number(new URL(quick.base).port);
    const head =
      "POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
      "Content-Length: 64\r\n\r\n{";
    const slow = await stalled(port, head);
    // Another client is served while the body is pending (or once it is cut off).
    expect((await fetch(`${quick.base}/healthz`)).status).toBe(200);
    expect(await slow.closed).toMatch(/^HTTP\/1\.1 408/);
    expect((await fetch(`${quick.base}/healthz`)).status).toBe(200);
  });

  it("closes a JSON-RPC connection that stays quiet (--rpc-idle-timeout), and serves a new one", async () => {
    const silent = await stalled(quick.rpcPort, "");
    const halfFrame = await stalled(quick.rpcPort, "Content-Length: 64\r\n\r\n{");
    expect(await silent.closed).toBe("");
    expect(await halfFrame.closed).toBe("");
    const ping = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
    const fresh = connect(quick.rpcPort, "127.0.0.1");
    const reply = await new Promise<string>((resolve, reject) => {
      let text = "";
      fresh.on("error", reject);
      fresh.on("data", (chunk) => {
        text += chunk.toString();
        if (text.includes('"pong"')) resolve(text);
      });
      fresh.write(Buffer.concat([Buffer.from(`Content-Length: ${ping.length}\r\n\r\n`), ping]));
    });
    fresh.destroy();
    expect(reply).toContain('"pong"');
  });
});

describe("the JSON-RPC port", () => {
  let rpc: Served;

  beforeAll(async () => {
    rpc = await startServe([
      ...["--rpc-port", "0", "--base-url", model.providerUrl, "--model", "scripted"],
      ...["--home", home, "--cwd", work],
    ]);
  });

  /** Sends bytes on a fresh connection: what came back once the server closed it (or, keepOpen, once a reply came). */
  function exchange(bytes: string | Buffer, keepOpen = false): Promise<{ text: string; closed: boolean }> {
    return new Promise((resolve, reject) => {
      const socket = connect(rpc.rpcPort, "127.0.0.1");
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString();
        if (keepOpen && text.includes("}")) {
          socket.destroy();
          resolve({ text, closed: false });
        }
      });
      socket.on("close", () => resolve({ text, closed: true }));
      socket.on("error", reject);
      socket.write(bytes);
    });
  }

  it("refuses an HTTP request (a browser's POST) and closes the connection", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session.create", params: {} });
    const { text, closed } = await exchange(
      `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(closed).toBe(true);
    expect(text).toContain('"code":-32600');
    expect(text).not.toContain('"sessionId"');
  });

  it("closes the connection after a frame with a bad Content-Length, and serves the next one", async () => {
    const { text, closed } = await exchange("Content-Length: 12x\r\n\r\n{}");
    expect(closed).toBe(true);
    expect(text).toContain("Invalid frame");
    const ping = await exchange(frame({ jsonrpc: "2.0", id: 2, method: "ping" }), true);
    expect(ping.text).toContain('"pong"');
  });

  it("answers Object.prototype's names as unknown methods (-32601)", async () => {
    for (const method of ["constructor", "__proto__", "toString"]) {
      const { text } = await exchange(frame({ jsonrpc: "2.0", id: 3, method }), true);
      expect(text).toContain('"code":-32601');
    }
  });

  it("refuses a workingDirectory outside the allowed roots", async () => {
    const { text } = await exchange(
      frame({ jsonrpc: "2.0", id: 4, method: "session.create", params: { workingDirectory: "/" } }),
      true,
    );
    expect(text).toContain("outside the directories this server may work in");
    expect(text).not.toContain(work);
  });
});

describe("start-up", () => {
  it("reports a port in use as a usage error naming the port", async () => {
    const port = new URL(server.base).port;
    const result = await runTern([
      ...["serve", "--port", port, "--base-url", model.providerUrl, "--model", "scripted", "--home", home],
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`port ${port} is already in use`);
    expect(result.stderr).not.toContain("internal error");
  });

  it("refuses --host 127.evil.example without a token: it is a name, not loopback", async () => {
    const result = await runTern([
      "serve",
      "--port",
      "0",
      "--host",
      "127.evil.example",
      "--base-url",
      model.providerUrl,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/127\.evil\.example \(not loopback\) requires a token/);
  });

  it("refuses a header timeout longer than the request timeout, and a timeout or size that is not a number", async () => {
    const base = ["serve", "--port", "0", "--base-url", model.providerUrl, "--home", home];
    const longer = await runTern([...base, "--request-timeout", "5", "--headers-timeout", "20"]);
    expect(longer.code).toBe(2);
    expect(longer.stderr).toContain("--headers-timeout (20) must not exceed --request-timeout (5)");
    const bad = await runTern([...base, "--rpc-idle-timeout", "soon"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--rpc-idle-timeout");
    const size = await runTern([...base, "--max-body", "1MB"]);
    expect(size.code).toBe(2);
    expect(size.stderr).toContain("--max-body");
  });
});

/** A JSON-RPC message in Content-Length framing. */
function frame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message));
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
}

/** `tern serve` on both ports (HTTP and JSON-RPC), on the scripted model, with `flags`. */
function serveBoth(flags: string[]): Promise<Served> {
  return startServe([
    ...["--port", "0", "--rpc-port", "0", "--base-url", model.providerUrl, "--model", "scripted"],
    ...["--home", home, "--cwd", work, ...flags],
  ]);
}

function sessionFiles(root: string): string[] {
  const sessions = join(root, "sessions");
  return readdirSync(sessions).flatMap((dir) =>
    readdirSync(join(sessions, dir))
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => join(sessions, dir, name)),
  );
}
