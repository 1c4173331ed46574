// web_search through httpSearchBackend against fake SearXNG and Brave endpoints on loopback (the
// search service is the external boundary).

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpSearchBackend, webSearchTool } from "../src/index.js";
import { callTool } from "./support.js";

let server: Server;
let base: string;
const seen: { url: string; token?: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    seen.push({ url: req.url ?? "", token: req.headers["x-subscription-token"] as string | undefined });
    const q = url.searchParams.get("q");
    if (url.pathname === "/searx/search") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          results: [1, 2, 3].map((n) => ({
            title: `${q} ${n}`,
            url: `https://r${n}.test/`,
            content: `snippet ${n}`,
          })),
        }),
      );
    } else if (url.pathname === "/brave") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          web: { results: [{ title: "Brave hit", url: "https://b.test/", description: "desc" }] },
        }),
      );
    } else if (url.pathname === "/broken") {
      res.writeHead(200, { "content-type": "application/json" }).end("{not json");
    } else res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("web_search", () => {
  it("queries a SearXNG endpoint and lists titles, URLs and snippets", async () => {
    const tools = [webSearchTool(httpSearchBackend({ kind: "searxng", url: `${base}/searx` }))];
    const result = await callTool(tools, "web_search", { query: "arctic tern", count: 2 });
    expect(result.isError).toBe(false);
    expect(result.text).toBe(
      "1. arctic tern 1\n   https://r1.test/\n   snippet 1\n2. arctic tern 2\n   https://r2.test/\n   snippet 2",
    );
    expect(seen.at(-1)?.url).toBe("/searx/search?q=arctic+tern&format=json");
  });

  it("queries a Brave-style endpoint with its token", async () => {
    const tools = [
      webSearchTool(httpSearchBackend({ kind: "brave", url: `${base}/brave`, apiKey: "k-123" })),
    ];
    const result = await callTool(tools, "web_search", { query: "tern" });
    expect(result.text).toContain("1. Brave hit\n   https://b.test/\n   desc");
    expect(seen.at(-1)).toEqual({ url: "/brave?q=tern&count=5", token: "k-123" });
  });

  it("turns a failing or malformed service into an error result", async () => {
    const failing = [webSearchTool(httpSearchBackend({ kind: "searxng", url: `${base}/down` }))];
    expect(await callTool(failing, "web_search", { query: "x" })).toMatchObject({
      isError: true,
      text: "web search (searxng) failed: the search service answered HTTP 500",
    });
    const broken = [webSearchTool(httpSearchBackend({ kind: "brave", url: `${base}/broken` }))];
    expect((await callTool(broken, "web_search", { query: "x" })).text).toContain("did not answer JSON");
  });

  it("takes any backend", async () => {
    const tools = [
      webSearchTool({ name: "fixed", search: async (q) => [{ title: q, url: "https://f.test/" }] }),
    ];
    expect((await callTool(tools, "web_search", { query: "hello" })).text).toBe(
      "1. hello\n   https://f.test/",
    );
  });
});
