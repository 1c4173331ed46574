// Server figures: heap per idle session and per streaming session (an open SSE stream, a run
// waiting in a tool), and frames per second to one SSE client. The server runs in its own child
// process (this file, forked with TERN_BENCH_SERVER=1) so the client's memory and CPU do not
// count; its model is the faux provider.
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { answerSynthesis } from "@tern/agent";
import { createFaux, type FauxStep, fauxToolCall } from "@tern/ai";
import { modelCatalog, startServer } from "@tern/server";
import { round } from "./measure.js";

const SESSIONS = 200;
const LONG_ANSWER = "All work and no play makes a server a dull stream. ".repeat(1600);
/** The server reads only JSON bodies. */
const JSON_BODY = { "content-type": "application/json" };

type Reply = { port: number } | { heapUsed: number; rss: number } | { released: true };

// ---------------------------------------------------------------- the server (child process)

async function serveChild(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const home = mkdtempSync(join(tmpdir(), "tern-bench-server-"));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  // The prompt names the scenario: "idle" answers at once, "hold" waits in a tool until the
  // parent releases it, "stream" streams a long synthesised answer.
  const reply: FauxStep = ({ context }) => {
    const prompt = JSON.stringify(context.messages);
    const last = context.messages.at(-1)!;
    if (context.systemPrompt?.includes("final answer"))
      return prompt.includes("stream") ? LONG_ANSWER : "Done.";
    if (prompt.includes('"idle"')) return "Hello! How can I help?";
    if (last.role === "user")
      return { content: [fauxToolCall(prompt.includes("hold") ? "hold" : "noop", {})] };
    return "ok";
  };
  const faux = createFaux({ replies: Array(SESSIONS * 10).fill(reply), recordRequests: false });
  const server = await startServer({
    engine: {
      models: modelCatalog([faux.model]),
      home,
      cwd: home,
      fsync: "never",
      configureAgent: () => ({
        policies: [answerSynthesis()],
        tools: [
          {
            name: "hold",
            description: "waits",
            parameters: { type: "object" },
            execute: async () => {
              await gate;
              return "held";
            },
          },
          {
            name: "noop",
            description: "does nothing",
            parameters: { type: "object" },
            execute: () => "nothing",
          },
        ],
      }),
    },
  });
  process.on("message", (message: { cmd: string }) => {
    if (message.cmd === "mem") {
      gc?.();
      const { heapUsed, rss } = process.memoryUsage();
      process.send?.({ heapUsed, rss } satisfies Reply);
    } else if (message.cmd === "release") {
      release();
      process.send?.({ released: true } satisfies Reply);
    } else if (message.cmd === "stop") {
      void server.close({ engine: true }).then(() => {
        rmSync(home, { recursive: true, force: true });
        process.exit(0);
      });
    }
  });
  process.send?.({ port: server.port } satisfies Reply);
}

// ---------------------------------------------------------------- the client (bench process)

function startChild() {
  const child = fork(new URL(import.meta.url), [], {
    execArgv: ["--import", "tsx", "--expose-gc"],
    env: { ...process.env, TERN_BENCH_SERVER: "1" },
  });
  const replies: ((reply: Reply) => void)[] = [];
  child.on("message", (message) => replies.shift()?.(message as Reply));
  const next = () => new Promise<Reply>((resolve) => replies.push(resolve));
  const ask = (cmd: string) => {
    const reply = next();
    child.send({ cmd });
    return reply;
  };
  return { child, next, ask };
}

async function newSession(base: string): Promise<string> {
  const res = await fetch(`${base}/api/sessions`, { method: "POST", headers: JSON_BODY, body: "{}" });
  return ((await res.json()) as { session: { id: string } }).session.id;
}

function post(base: string, id: string, content: string): Promise<Response> {
  return fetch(`${base}/api/sessions/${id}/messages`, {
    method: "POST",
    headers: JSON_BODY,
    body: JSON.stringify({ content }),
  });
}

/** Reads an SSE body until `stop` says so; returns the frames (data lines) seen. */
async function readFrames(res: Response, stop: (text: string) => boolean): Promise<number> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let frames = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return frames;
    const chunk = decoder.decode(value, { stream: true });
    frames += chunk.split("\ndata: ").length - 1;
    text = (text + chunk).slice(-4_000);
    if (stop(text)) {
      reader.releaseLock();
      return frames;
    }
  }
}

export async function serverBench(): Promise<Record<string, string | number>[]> {
  const { child, next, ask } = startChild();
  const { port } = (await next()) as { port: number };
  const base = `http://127.0.0.1:${port}`;
  const heap = async () => ((await ask("mem")) as { heapUsed: number }).heapUsed;
  try {
    const empty = await heap();

    const idle = await Promise.all(Array.from({ length: SESSIONS }, () => newSession(base)));
    await Promise.all(idle.map(async (id) => (await post(base, id, "idle")).text()));
    const afterIdle = await heap();

    const held = await Promise.all(Array.from({ length: SESSIONS }, () => newSession(base)));
    const streams = await Promise.all(held.map((id) => post(base, id, "hold")));
    await Promise.all(streams.map((res) => readFrames(res, (text) => text.includes('"tool_name":"hold"'))));
    const whileStreaming = await heap();
    await ask("release");
    await Promise.all(streams.map((res) => readFrames(res, (text) => text.includes("event: done"))));

    const id = await newSession(base);
    const start = performance.now();
    const frames = await readFrames(await post(base, id, "stream"), (text) => text.includes("event: done"));
    const seconds = (performance.now() - start) / 1000;

    return [
      {
        figure: "heap per idle session (one short run done)",
        value: round((afterIdle - empty) / 1024 / SESSIONS, 1),
        unit: "KiB",
      },
      {
        figure: "heap per streaming session (open SSE stream, run in a tool)",
        value: round((whileStreaming - afterIdle) / 1024 / SESSIONS, 1),
        unit: "KiB",
      },
      {
        figure: "frames per second to one SSE client (synthesised answer)",
        value: Math.round(frames / seconds),
        unit: "frames/s",
      },
      { figure: "frames in that run", value: frames, unit: "frames" },
    ];
  } finally {
    child.send({ cmd: "stop" });
    await new Promise((resolve) => child.once("exit", resolve));
  }
}

if (process.env.TERN_BENCH_SERVER === "1") await serveChild();
