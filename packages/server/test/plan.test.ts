// Plan mode over HTTP + SSE: a session created with `strategy: "plan"` streams FIM One's phase and
// step_progress frames and is listed with its strategy; an unknown strategy is the client's error.
import { fauxToolCall } from "@tern/ai/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpServer, startServer } from "../src/http/server.js";
import { type TestEngine, testEngine } from "./support/engine.js";
import { JSON_TYPE, postMessage } from "./support/sse.js";

let env: TestEngine;
let server: HttpServer;

afterEach(async () => {
  await server?.close();
  await env?.close();
});

const PLAN_RUN = [
  { content: [fauxToolCall("make_plan", { steps: [{ id: "look", task: "look it up", dependencies: [] }] })] },
  "It is 42.",
  { content: [fauxToolCall("analyze_results", { achieved: true, confidence: 0.9, reasoning: "found" })] },
  "The answer is 42.",
];

describe("plan mode over HTTP", () => {
  it("runs a session created with strategy plan and streams its phases and steps", async () => {
    env = testEngine({ faux: { replies: PLAN_RUN } });
    server = await startServer({ engine: env.engine });
    const res = await fetch(`${server.url}/api/sessions`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ strategy: "plan" }),
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { session: { id: string } }).session.id;
    const listed = (await (await fetch(`${server.url}/api/sessions`)).json()) as {
      sessions: { id: string; strategy?: string }[];
    };
    expect(listed.sessions.find((s) => s.id === id)?.strategy).toBe("plan");
    const frames = await postMessage(server.url, id, "What is it?");
    const outline = frames.map((f) =>
      f.event === "phase"
        ? `phase:${f.data.phase}`
        : f.event === "step_progress"
          ? `step:${f.data.step_id}:${f.data.status}`
          : f.event,
    );
    expect(outline.filter((o, i) => o !== "answer" || outline[i - 1] !== "answer")).toEqual([
      "phase:planning",
      "phase:executing",
      "step:look:running",
      "step:look:done",
      "phase:analyzing",
      "step",
      "answer",
      "done",
    ]);
    const analyzing = frames.find((f) => f.data.phase === "analyzing");
    expect(analyzing?.data).toMatchObject({ round: 1, achieved: true, confidence: 0.9 });
    expect(frames.at(-1)?.data).toMatchObject({ answer: "The answer is 42.", stop_reason: "stop" });
  });

  it("refuses an unknown strategy with 400", async () => {
    env = testEngine();
    server = await startServer({ engine: env.engine });
    const res = await fetch(`${server.url}/api/sessions`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ strategy: "swarm" }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: "invalid", message: 'unknown strategy "swarm": use loop, plan, auto' },
    });
  });
});
