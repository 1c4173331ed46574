// grep and glob cannot hang the process: regular expressions and glob patterns run on a
// linear-time engine (no catastrophic backtracking), the search gives the event loop turns (a
// server keeps answering), and it stops when aborted.
// No assertion here is about elapsed time: only results and the order of events.

import { writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { workspace } from "./support.js";

/** Lines that make a backtracking engine explode on `(a+)+$`; about 4 MB in all. */
function bigFile(): string {
  return `${"a".repeat(60)}!\n`.repeat(65_000);
}

describe("grep on a linear-time engine", () => {
  it("answers (a+)+$ on a 35-byte file", async () => {
    const ws = await workspace({ "evil.txt": `${"a".repeat(34)}!` });
    const result = await ws.call("grep", { pattern: "(a+)+$" });
    expect(result.text).toBe('No matches for "(a+)+$" in . (1 file searched).');
    const hit = await ws.call("grep", { pattern: "(a+)+!$" });
    expect(hit.text).toBe(`evil.txt:1:${"a".repeat(34)}!`);
  });

  it("explains patterns RE2 does not support", async () => {
    const ws = await workspace({ "a.txt": "xx\n" });
    const result = await ws.call("grep", { pattern: "(x)\\1" });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^Invalid regular expression: .*no backreferences or lookaround/);
  });

  it("keeps a loopback server answering while it searches a large file", async () => {
    const ws = await workspace({ "big.txt": bigFile() });
    const events: string[] = [];
    const server = createServer((_req, res) => {
      events.push("healthz answered");
      res.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const search = ws.call("grep", { pattern: "(a+)+$" }).then((result) => {
        events.push("grep finished");
        return result;
      });
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(await health.text()).toBe("ok");
      const result = await search;
      expect(result.text).toBe('No matches for "(a+)+$" in . (1 file searched).');
      expect(events).toEqual(["healthz answered", "grep finished"]);
    } finally {
      server.close();
    }
  });

  it("stops when the call is aborted", async () => {
    const ws = await workspace({ "big.txt": bigFile() });
    await writeFile(path.join(ws.root, "big2.txt"), bigFile());
    const controller = new AbortController();
    const search = ws.call("grep", { pattern: "(a+)+$", path: "big.txt" }, controller.signal);
    setImmediate(() => controller.abort());
    const result = await search;
    expect(result.isError).toBe(true);
    expect(result.text).toBe("The search was aborted.");
  });
});

describe("glob patterns on a linear-time engine", () => {
  // picomatch's backtracking expression for this pattern takes minutes on a 200-character name.
  const BACKTRACKER = `${"*a".repeat(8)}*b`;

  it("answers a backtracking-prone pattern against a long file name", async () => {
    const ws = await workspace({ [`${"a".repeat(200)}.txt`]: "x\n", ab: "x\n" });
    const glob = await ws.call("glob", { pattern: BACKTRACKER });
    expect(glob.details.files).toEqual([]);
    const grep = await ws.call("grep", { pattern: "x", glob: BACKTRACKER });
    expect(grep.text).toBe('No matches for "x" in . (0 files searched).');
    expect((await ws.call("glob", { pattern: "*a*b" })).details.files).toEqual(["ab"]);
  });

  it("refuses brace groups that would expand combinatorially", async () => {
    const ws = await workspace({ "a.txt": "x\n" });
    const result = await ws.call("glob", { pattern: "{a,b}".repeat(30) });
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      `Invalid glob pattern "${"{a,b}".repeat(30)}": its {…} groups expand to more than 1024 alternatives`,
    );
  });
});
