import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { workspace } from "./support.js";

describe("read", () => {
  it("shows numbered lines", async () => {
    const ws = await workspace({ "a.txt": "alpha\nbeta\ngamma\n" });
    const result = await ws.call("read", { path: "a.txt" });
    expect(result.isError).toBe(false);
    expect(result.text).toBe("     1\talpha\n     2\tbeta\n     3\tgamma");
    expect(result.details).toEqual({
      path: "a.txt",
      startLine: 1,
      endLine: 3,
      totalLines: 3,
      truncated: false,
      binary: false,
      sizeBytes: 17,
    });
  });

  it("reads a line range and says how to continue", async () => {
    const ws = await workspace({ "a.txt": "1\n2\n3\n4\n5\n6\n" });
    const result = await ws.call("read", { path: "a.txt", offset: 3, limit: 2 });
    expect(result.text).toBe("     3\t3\n     4\t4\n\n[Showing lines 3-4 of 6. Use offset=5 to continue.]");
    expect(result.details).toMatchObject({ startLine: 3, endLine: 4, totalLines: 6, truncated: true });
  });

  it("caps the number of lines with a truncation note", async () => {
    const body = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n");
    const ws = await workspace({ "long.txt": body }, { read: { maxLines: 5 } });
    const result = await ws.call("read", { path: "long.txt" });
    expect(result.text.split("\n").slice(0, 5)).toEqual([
      "     1\tline 1",
      "     2\tline 2",
      "     3\tline 3",
      "     4\tline 4",
      "     5\tline 5",
    ]);
    expect(result.text).toContain(
      "[Truncated at 5 lines: showing lines 1-5 of 12. Use offset=6 to continue.]",
    );
    const next = await ws.call("read", { path: "long.txt", offset: 11 });
    expect(next.text).toBe("    11\tline 11\n    12\tline 12");
  });

  it("caps the output size and cuts very long lines", async () => {
    const body = `${"x".repeat(5000)}\n${Array.from({ length: 200 }, () => "y".repeat(60)).join("\n")}\n`;
    const ws = await workspace({ "big.txt": body }, { read: { maxBytes: 1000, maxLineLength: 100 } });
    const result = await ws.call("read", { path: "big.txt" });
    const lines = result.text.split("\n");
    expect(lines[0]).toBe(`     1\t${"x".repeat(100)}… [4900 more characters]`);
    const shownBytesCeiling = 1300; // maxBytes plus line numbers and the note, in bytes
    expect(Buffer.byteLength(result.text)).toBeLessThan(shownBytesCeiling);
    expect(result.text).toMatch(
      /\[Truncated at 1\.0 KB: showing lines 1-\d+ of 201\. Use offset=\d+ to continue\.\]$/,
    );
    expect(result.details.truncated).toBe(true);
  });

  it("says an empty file is empty and refuses an offset past the end", async () => {
    const ws = await workspace({ "empty.txt": "", "two.txt": "a\nb\n" });
    expect((await ws.call("read", { path: "empty.txt" })).text).toBe("empty.txt is empty.");
    const past = await ws.call("read", { path: "two.txt", offset: 9 });
    expect(past.isError).toBe(true);
    expect(past.text).toBe("offset 9 is past the end of two.txt, which has 2 lines.");
  });

  it("strips CRLF line endings in the numbered view", async () => {
    const ws = await workspace({ "win.txt": "one\r\ntwo\r\n" });
    expect((await ws.call("read", { path: "win.txt" })).text).toBe("     1\tone\n     2\ttwo");
  });

  it("detects binary files instead of printing garbage", async () => {
    const png = Buffer.from([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
    ]);
    const ws = await workspace({ "img.png": png });
    const result = await ws.call("read", { path: "img.png" });
    expect(result.isError).toBe(false);
    expect(result.text).toBe(
      "img.png is a binary file (16 B); its content is not shown. Use bash (for example `file` or `xxd | head`) to inspect it.",
    );
    expect(result.details).toMatchObject({ binary: true, sizeBytes: 16 });
  });

  it("reports missing files and directories as errors", async () => {
    const ws = await workspace({ "src/a.ts": "x" });
    const missing = await ws.call("read", { path: "nope.txt" });
    expect(missing).toMatchObject({ isError: true, text: "nope.txt: no such file or directory." });
    const dir = await ws.call("read", { path: "src" });
    expect(dir).toMatchObject({ isError: true, text: "src is a directory, not a file. Use ls to list it." });
  });

  it("refuses to read a named pipe (it would block forever)", async () => {
    const ws = await workspace();
    execFileSync("mkfifo", [path.join(ws.root, "pipe")]);
    const result = await ws.call("read", { path: "pipe" });
    expect(result).toMatchObject({
      isError: true,
      text: "pipe is not a regular file (a device, socket or pipe); it is not read.",
    });
  });

  it("accepts absolute paths inside the root", async () => {
    const ws = await workspace({ "src/a.ts": "const a = 1;\n" });
    const result = await ws.call("read", { path: path.join(ws.root, "src/a.ts") });
    expect(result.text).toBe("     1\tconst a = 1;");
    expect(result.details.path).toBe("src/a.ts");
  });

  it("rejects bad arguments through the schema", async () => {
    const ws = await workspace({ "a.txt": "a" });
    const result = await ws.call("read", { path: "a.txt", offset: 0 });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('Invalid arguments for tool "read"');
    expect(result.text).toContain("offset");
  });
});
