// 200 sessions streaming at once from a paced scripted model: every stream gets every frame of
// its run, in order, and no other session's.
import { answerSynthesis } from "@tern/agent";
import { type FauxStep, fauxToolCall } from "@tern/ai/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type HttpServer, startServer } from "../src/http/server.js";
import { lookupTool, type TestEngine, testEngine } from "./support/engine.js";
import { JSON_TYPE, postMessage } from "./support/sse.js";

const SESSIONS = 200;
let env: TestEngine;
let server: HttpServer;

/** Each session asks about its own word: a lookup, a short final text, then the synthesised answer. */
const reply: FauxStep = ({ context }) => {
  const messages = context.messages;
  const last = messages.at(-1)!;
  const word = /look up (w\d+)/.exec(JSON.stringify(messages))![1];
  if (context.systemPrompt?.includes("final answer"))
    return `The word ${word} is in the index, found on the first try.`;
  if (last.role === "user") return { content: [fauxToolCall("lookup", { q: word })] };
  return `found ${word}`;
};

beforeAll(async () => {
  env = testEngine({
    faux: { replies: Array(SESSIONS * 3).fill(reply), tokenDelayMs: 2, recordRequests: false },
    agent: { tools: [lookupTool], policies: [answerSynthesis()] },
  });
  server = await startServer({ engine: env.engine });
});

afterAll(async () => {
  await server.close();
  await env.close();
});

it(`streams ${SESSIONS} concurrent runs without losing a frame`, async () => {
  const ids = await Promise.all(
    Array.from({ length: SESSIONS }, async () => {
      const res = await fetch(`${server.url}/api/sessions`, {
        method: "POST",
        headers: JSON_TYPE,
        body: "{}",
      });
      return ((await res.json()) as { session: { id: string } }).session.id;
    }),
  );
  const runs = await Promise.all(ids.map((id, i) => postMessage(server.url, id, `look up w${i}`)));
  runs.forEach((frames, i) => {
    const word = `w${i}`;
    const events = frames.map((f) =>
      f.event === "step" ? `step:${f.data.type}:${f.data.status}` : `${f.event}:${f.data.status ?? ""}`,
    );
    const deltas = frames.filter((f) => f.event === "answer" && f.data.status === "delta");
    // The fixed part of the sequence, with every answer delta in the middle.
    expect(events.filter((e) => e !== "answer:delta")).toEqual([
      "step:thinking:start",
      "step:thinking:done",
      "step:iteration:start",
      "step:iteration:done",
      "step:thinking:start",
      "step:thinking:done",
      "step:answer:start",
      "answer:start",
      "answer:done",
      "done:",
    ]);
    const answer = `The word ${word} is in the index, found on the first try.`;
    expect(deltas.map((f) => f.data.content).join("")).toBe(answer);
    expect(deltas.length).toBeGreaterThan(10);
    expect(frames.at(-1)!.data.answer).toBe(answer);
    const observation = frames.find((f) => f.data.type === "iteration" && f.data.status === "done")!.data
      .observation;
    expect(observation).toBe(`found ${word}`);
    const ids = frames.map((f) => f.id.split(".").map(Number));
    for (let k = 1; k < ids.length; k++) {
      const [a, b] = [ids[k - 1]!, ids[k]!];
      expect(b[0]! > a[0]! || (b[0] === a[0] && b[1]! > (a[1] ?? 0))).toBe(true);
    }
  });
}, 60_000);
