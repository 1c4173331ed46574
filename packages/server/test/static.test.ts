// The web page's serving: the strict CSP and caching headers, nothing outside the page's files,
// the page public but the API behind the token, and the API the page relies on (GET /api/models,
// run_from in GET /api/sessions/:id).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type HttpServer, startServer } from "../src/http/server.js";
import { type TestEngine, testEngine } from "./support/engine.js";
import { eventSourceRun, JSON_TYPE } from "./support/sse.js";

const root = mkdtempSync(join(tmpdir(), "tern-web-root-"));
mkdirSync(join(root, "assets"));
writeFileSync(join(root, "index.html"), "<!doctype html><title>t</title>");
writeFileSync(join(root, "assets", "main-ABC123.js"), "console.log(1)");
writeFileSync(join(root, "secret.txt"), "not served");
afterAll(() => rmSync(root, { recursive: true, force: true }));

let env: TestEngine;
let server: HttpServer;
afterEach(async () => {
  await server?.close();
  await env?.close();
});

async function start(token?: string) {
  env = testEngine({ faux: { replies: ["Hi.", "Again."] } });
  server = await startServer({ engine: env.engine, webRoot: root, ...(token ? { token } : {}) });
}

describe("the web page", () => {
  it("serves the page revalidated and the hashed assets immutable, under a strict CSP", async () => {
    await start();
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("cache-control")).toBe("no-cache");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const asset = await fetch(`${server.url}/assets/main-ABC123.js`);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(await asset.text()).toBe("console.log(1)");
  });

  it("serves nothing else: other files, traversal and other methods are 404 or refused", async () => {
    await start();
    for (const path of [
      "/secret.txt",
      "/assets/../secret.txt",
      "/assets/%2e%2e/secret.txt",
      "/assets/nope.js",
    ])
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(404);
    expect((await fetch(`${server.url}/`, { method: "POST", headers: JSON_TYPE, body: "{}" })).status).toBe(
      404,
    );
  });

  it("serves the page without the token; the API behind it needs it", async () => {
    await start("s3cret");
    expect((await fetch(`${server.url}/`)).status).toBe(200);
    expect((await fetch(`${server.url}/api/models`)).status).toBe(401);
    const models = await fetch(`${server.url}/api/models`, { headers: { authorization: "Bearer s3cret" } });
    const body = (await models.json()) as { models: { id: string }[]; default: string };
    expect(body.models.length).toBeGreaterThan(0);
    expect(body.default).toBe(body.models[0]!.id);
  });

  it("tells where the replayed run starts in the messages (run_from)", async () => {
    await start();
    const created = await fetch(`${server.url}/api/sessions`, {
      method: "POST",
      headers: JSON_TYPE,
      body: "{}",
    });
    const id = ((await created.json()) as { session: { id: string } }).session.id;
    await eventSourceRun(server.url, id, "one");
    await eventSourceRun(server.url, id, "two");
    const data = (await (await fetch(`${server.url}/api/sessions/${id}`)).json()) as {
      messages: { role: string }[];
      run_from: number;
    };
    expect(data.messages.length).toBe(4);
    expect(data.run_from).toBe(2);
    expect(data.messages[data.run_from]!.role).toBe("user");
  });
});
