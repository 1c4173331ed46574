// GET /api/sessions/:id/changes against a real server: the checkpoints a session's tools left
// (written with the real CheckpointStore) against the files now, behind the token like every route.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CheckpointStore } from "@tern/tools";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpServer, startServer } from "../src/http/server.js";
import { type TestEngine, testEngine } from "./support/engine.js";
import { JSON_TYPE } from "./support/sse.js";

let env: TestEngine;
let server: HttpServer;
afterEach(async () => {
  await server?.close();
  await env?.close();
});

const TOKEN = "t0ken";
const auth = { authorization: `Bearer ${TOKEN}` };

async function newSession(): Promise<string> {
  const res = await fetch(`${server.url}/api/sessions`, {
    method: "POST",
    headers: { ...JSON_TYPE, ...auth },
    body: "{}",
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { session: { id: string } }).session.id;
}

describe("GET /api/sessions/:id/changes", () => {
  it("lists added and modified files with unified diffs; an unchanged path is left out", async () => {
    env = testEngine({ faux: { replies: ["Hi."] } });
    server = await startServer({ engine: env.engine, token: TOKEN });
    const id = await newSession();
    const store = CheckpointStore.forSession(env.home, id);
    const edited = join(env.home, "a.txt");
    const added = join(env.home, "<img src=x onerror=alert(1)>.md");
    const untouched = join(env.home, "same.txt");
    writeFileSync(edited, "one\ntwo\n");
    writeFileSync(untouched, "same\n");
    for (const file of [edited, added, untouched])
      await store.append({
        type: "before",
        turn: "t1",
        tool: "write",
        path: file,
        state: await store.snapshot(file),
      });
    writeFileSync(edited, "one\nTWO\n");
    writeFileSync(added, "<script>x</script>\n");

    const res = await fetch(`${server.url}/api/sessions/${id}/changes`, { headers: auth });
    expect(res.status).toBe(200);
    const { changes } = (await res.json()) as { changes: { path: string; status: string; diff: string }[] };
    expect(changes.map((c) => [c.path, c.status])).toEqual([
      ["a.txt", "modified"],
      ["<img src=x onerror=alert(1)>.md", "added"],
    ]);
    expect(changes[0]!.diff).toContain("-two\n+TWO");
    expect(changes[1]!.diff).toContain("--- /dev/null");
    expect(changes[1]!.diff).toContain("+<script>x</script>");
  });

  it("is 404 for an unknown session, 401 without the token, 405 for another method", async () => {
    env = testEngine({ faux: { replies: ["Hi."] } });
    server = await startServer({ engine: env.engine, token: TOKEN });
    expect((await fetch(`${server.url}/api/sessions/nope/changes`, { headers: auth })).status).toBe(404);
    const id = await newSession();
    expect((await fetch(`${server.url}/api/sessions/${id}/changes`)).status).toBe(401);
    const post = await fetch(`${server.url}/api/sessions/${id}/changes`, {
      method: "POST",
      headers: { ...JSON_TYPE, ...auth },
      body: "{}",
    });
    expect(post.status).toBe(405);
    const none = await fetch(`${server.url}/api/sessions/${id}/changes`, { headers: auth });
    expect(await none.json()).toEqual({ changes: [] });
  });
});
