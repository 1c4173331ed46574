// web_fetch against a real HTTP server on loopback: the address guard is lifted for 127.0.0.1 only,
// exactly as a host would lift it, so every other internal address stays refused.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PermissionPolicy, webFetchTool } from "../src/index.js";
import { checkAddress } from "../src/web/address-guard.js";
import { callTool } from "./support.js";

const ARTICLE = `<!doctype html><html><head><title>Terns of the North</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About us</a></nav>
<article><h1>Terns of the North</h1>
<p>The Arctic tern makes the longest migration of any animal, flying from the Arctic to the Antarctic and back each year. <a href="/more">Read more</a>.</p>
<p>Over its life a tern may fly a distance equal to three round trips to the Moon. Scientists tracked them with tiny geolocators weighing less than a paperclip.</p>
<ul><li>Weight: about 100 grams</li><li>Lifespan: thirty years</li></ul>
</article><footer>Copyright Bird Society</footer></body></html>`;

let server: Server;
let base: string;
let requests: string[] = [];
// Never resolved: the slow route hangs until the client gives up.
const hanging: ServerResponse[] = [];

function route(req: IncomingMessage, res: ServerResponse): void {
  requests.push(req.url ?? "");
  switch (req.url) {
    case "/article":
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(ARTICLE);
      return;
    case "/data.json":
      res.writeHead(200, { "content-type": "application/json" }).end('{"tern":"arctic","km":70900}');
      return;
    case "/image.png":
      res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]));
      return;
    case "/big.txt":
      res.writeHead(200, { "content-type": "text/plain" });
      // Far more than the test's 1000-byte cap; the client must stop reading.
      res.end("x".repeat(200_000));
      return;
    case "/slow":
      hanging.push(res);
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("partial");
      return;
    case "/to-metadata":
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      return;
    case "/to-private-name":
      res.writeHead(302, { location: "http://[::ffff:10.0.0.1]/" }).end();
      return;
    case "/hop":
      res.writeHead(301, { location: "/article" }).end();
      return;
    case "/loop":
      res.writeHead(302, { location: "/loop" }).end();
      return;
    case "/elsewhere":
      res.writeHead(302, { location: "https://example.org/page" }).end();
      return;
    default:
      res.writeHead(404, { "content-type": "text/plain" }).end("not here");
  }
}

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const lifted = [webFetchTool({ allowPrivateAddresses: ["127.0.0.1"], maxBytes: 1000, timeoutMs: 2000 })];
const fetchLifted = (url: string) => callTool(lifted, "web_fetch", { url });

describe("web_fetch content", () => {
  it("turns an HTML article into Markdown without the navigation and footer", async () => {
    const big = [webFetchTool({ allowPrivateAddresses: ["127.0.0.1"] })];
    const result = await callTool(big, "web_fetch", { url: `${base}/article` });
    expect(result.isError).toBe(false);
    expect(result.text).toContain("# Terns of the North");
    expect(result.text).toContain("The Arctic tern makes the longest migration");
    expect(result.text).toContain("[Read more](");
    expect(result.text).toMatch(/^- +Weight: about 100 grams$/m);
    expect(result.text).not.toContain("About us");
    expect(result.text).not.toContain("Copyright Bird Society");
    expect(result.details).toMatchObject({ status: 200, contentType: "text/html", truncated: false });
  });

  it("returns JSON and text as they are", async () => {
    const result = await fetchLifted(`${base}/data.json`);
    expect(result.isError).toBe(false);
    expect(result.text).toContain('{"tern":"arctic","km":70900}');
  });

  it("refuses binary content", async () => {
    const result = await fetchLifted(`${base}/image.png`);
    expect(result.isError).toBe(true);
    expect(result.text).toContain("image/png, not text or HTML");
  });

  it("reads at most maxBytes and says the page was cut", async () => {
    const result = await fetchLifted(`${base}/big.txt`);
    expect(result.isError).toBe(false);
    expect(result.details.bytes).toBe(1000);
    expect(result.details.truncated).toBe(true);
    expect(result.text).toContain("only that much was read");
  });

  it("cuts the text handed to the model at maxOutputChars", async () => {
    const tools = [webFetchTool({ allowPrivateAddresses: ["127.0.0.1"], maxOutputChars: 50 })];
    const result = await callTool(tools, "web_fetch", { url: `${base}/big.txt` });
    expect(result.text).toContain(`${"x".repeat(50)}\n\n[`);
    expect(result.text).not.toContain("x".repeat(51));
    expect(result.text).toContain("cut at 50 characters");
  });

  it("stops a response that does not finish within the time cap", async () => {
    const tools = [webFetchTool({ allowPrivateAddresses: ["127.0.0.1"], timeoutMs: 300 })];
    const result = await callTool(tools, "web_fetch", { url: `${base}/slow` });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("took longer than 0.3 s");
  });

  it("reports an HTTP error status as an error with the body", async () => {
    const result = await fetchLifted(`${base}/missing`);
    expect(result.isError).toBe(true);
    expect(result.text).toContain("HTTP status: 404");
    expect(result.text).toContain("not here");
  });

  it("follows same-host redirects, caps them, and reports cross-host ones without following", async () => {
    const hop = await fetchLifted(`${base}/hop`);
    expect(hop.text).toContain("Terns of the North");
    expect(hop.details.finalUrl).toBe(`${base}/article`);
    const loop = await fetchLifted(`${base}/loop`);
    expect(loop.isError).toBe(true);
    expect(loop.text).toContain("too many redirects");
    const away = await fetchLifted(`${base}/elsewhere`);
    expect(away.isError).toBe(false);
    expect(away.text).toContain("redirects (HTTP 302) to another host: https://example.org/page");
  });

  it("refuses other schemes and bad URLs", async () => {
    expect((await fetchLifted("file:///etc/passwd")).text).toContain("only http and https");
    expect((await fetchLifted("not a url")).text).toContain("is not a valid URL");
    expect((await fetchLifted("http://user:pw@example.org/")).text).toContain("credentials");
  });
});

describe("web_fetch SSRF guard", () => {
  it("refuses loopback by default, without sending a request", async () => {
    requests = [];
    const guarded = [webFetchTool()];
    for (const url of [`${base}/article`, "http://localhost:1/", "http://[::1]/", "http://2130706433/"]) {
      const result = await callTool(guarded, "web_fetch", { url });
      expect(result.isError, url).toBe(true);
      expect(result.text, url).toContain("refused to connect");
    }
    expect(requests).toEqual([]);
  });

  it("connects to the address it resolved and checked when a name is used", async () => {
    // "localhost" goes through the guard's own DNS lookup (an IP literal would skip it).
    const tools = [webFetchTool({ allowPrivateAddresses: ["127.0.0.1", "::1"] })];
    const port = new URL(base).port;
    const result = await callTool(tools, "web_fetch", { url: `http://localhost:${port}/data.json` });
    expect(result.isError, result.text).toBe(false);
    expect(result.text).toContain('"tern":"arctic"');
  });

  it("refuses a redirect into the internal network even when loopback is lifted", async () => {
    const metadata = await fetchLifted(`${base}/to-metadata`);
    expect(metadata.isError).toBe(true);
    expect(metadata.text).toContain("169.254.169.254 is a link-local address");
    const mapped = await fetchLifted(`${base}/to-private-name`);
    expect(mapped.isError).toBe(true);
    expect(mapped.text).toContain("10.0.0.1 is a private network address");
  });

  it("classifies addresses with ipaddr.js ranges", () => {
    const refused = [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fd00::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:192.168.0.1",
      "64:ff9b::a00:1",
      "2002:a00:1::",
    ];
    for (const address of refused) expect(checkAddress(address), address).toBeDefined();
    for (const address of ["93.184.215.14", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
      expect(checkAddress(address), address).toBeUndefined();
    expect(checkAddress("127.0.0.1", { allowPrivateAddresses: ["127.0.0.1"] })).toBeUndefined();
    expect(checkAddress("127.0.0.2", { allowPrivateAddresses: ["127.0.0.1"] })).toBeDefined();
  });
});

describe("web_fetch domain rules", () => {
  const policy = new PermissionPolicy({
    tools: lifted,
    allow: ["web_fetch(domain:docs.example.com)", "web_fetch(domain:example.org)"],
    deny: ["web_fetch(domain:evil.example.org)"],
  });
  const decide = (url: string) => policy.check({ toolName: "web_fetch", args: { url } });

  it("allows the named domain and its subdomains, nothing that merely ends alike", () => {
    expect(decide("https://docs.example.com/a")).toMatchObject({ allow: true, by: "allow-rule" });
    expect(decide("https://api.example.org/x")).toMatchObject({ allow: true, by: "allow-rule" });
    expect(decide("https://notexample.org/")).toMatchObject({ ask: true });
    expect(decide("https://example.com/")).toMatchObject({ ask: true });
  });

  it("denies by domain before anything else, and asks with a domain rule to suggest", () => {
    expect(decide("https://evil.example.org/")).toMatchObject({ allow: false, by: "deny-rule" });
    const ask = decide("https://other.test/page");
    expect(ask).toMatchObject({ ask: true, request: { suggestedRules: ["web_fetch(domain:other.test)"] } });
  });

  it("is not a read tool: read-only mode denies it", () => {
    const readOnly = new PermissionPolicy({ tools: lifted, mode: "read-only" });
    expect(readOnly.check({ toolName: "web_fetch", args: { url: "https://a.test/" } })).toMatchObject({
      allow: false,
    });
  });
});
