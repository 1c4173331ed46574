import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { workspace } from "./support.js";

const read = (root: string, rel: string) => readFile(path.join(root, rel), "utf8");

describe("write", () => {
  it("creates missing directories and reports bytes", async () => {
    const ws = await workspace();
    const result = await ws.call("write", { path: "deep/er/héllo.txt", content: "héllo\n" });
    expect(result.isError).toBe(false);
    expect(result.text).toBe("Created deep/er/héllo.txt (7 bytes).");
    expect(result.details).toEqual({ path: "deep/er/héllo.txt", bytes: 7, created: true });
    expect(await read(ws.root, "deep/er/héllo.txt")).toBe("héllo\n");
  });

  it("overwrites an existing file", async () => {
    const ws = await workspace({ "a.txt": "old" });
    const result = await ws.call("write", { path: "a.txt", content: "new content" });
    expect(result.text).toBe("Overwrote a.txt (11 bytes).");
    expect(result.details.created).toBe(false);
    expect(await read(ws.root, "a.txt")).toBe("new content");
  });

  it("refuses to write over a directory", async () => {
    const ws = await workspace();
    await mkdir(path.join(ws.root, "dir"));
    const result = await ws.call("write", { path: "dir", content: "x" });
    expect(result).toMatchObject({ isError: true, text: "dir is a directory; give a file path." });
  });
});

describe("edit", () => {
  const source = "function add(a, b) {\n  return a - b;\n}\n\nconsole.log(add(1, 2));\n";

  it("counts instead of diffing a rewrite too large to diff (it would block the event loop)", async () => {
    const lines = (tag: string) => Array.from({ length: 5000 }, (_, i) => `${tag} ${i}`).join("\n");
    const ws = await workspace({ "big.txt": `head\n${lines("old")}\ntail\n` });
    const result = await ws.call("edit", {
      path: "big.txt",
      edits: [{ oldText: lines("old"), newText: lines("new") }],
    });
    expect(result.isError).toBe(false);
    expect(result.text).toBe(
      "Edited big.txt: 1 replacement (-5000 +5000 lines; the diff is too large to show). Read the file to check the result.",
    );
    expect(result.details).toMatchObject({
      diff: "",
      linesAdded: 5000,
      linesRemoved: 5000,
      firstChangedLine: 2,
    });
    expect(await readFile(path.join(ws.root, "big.txt"), "utf8")).toBe(`head\n${lines("new")}\ntail\n`);
  });

  it("replaces text exactly once and returns a unified diff", async () => {
    const ws = await workspace({ "src/add.js": source });
    const result = await ws.call("edit", {
      path: "src/add.js",
      edits: [{ oldText: "return a - b;", newText: "return a + b;" }],
    });
    expect(result.isError).toBe(false);
    expect(result.text).toBe(
      [
        "Edited src/add.js: 1 replacement.",
        "",
        "--- src/add.js",
        "+++ src/add.js",
        "@@ -1,5 +1,5 @@",
        " function add(a, b) {",
        "-  return a - b;",
        "+  return a + b;",
        " }",
        " ",
        " console.log(add(1, 2));",
        "",
      ].join("\n"),
    );
    expect(result.details).toMatchObject({
      path: "src/add.js",
      replacements: 1,
      linesAdded: 1,
      linesRemoved: 1,
      firstChangedLine: 2,
    });
    expect(await read(ws.root, "src/add.js")).toBe(source.replace("a - b", "a + b"));
  });

  it("applies several edits in one call", async () => {
    const ws = await workspace({ "a.txt": "one\ntwo\nthree\nfour\n" });
    const result = await ws.call("edit", {
      path: "a.txt",
      edits: [
        { oldText: "four", newText: "FOUR" },
        { oldText: "one\n", newText: "" },
      ],
    });
    expect(result.text.split("\n")[0]).toBe("Edited a.txt: 2 replacements.");
    expect(await read(ws.root, "a.txt")).toBe("two\nthree\nFOUR\n");
    expect(result.details).toMatchObject({ linesAdded: 1, linesRemoved: 2, firstChangedLine: 1 });
  });

  it("names the edit that does not match and changes nothing", async () => {
    const ws = await workspace({ "a.txt": "alpha\nbeta\n" });
    const result = await ws.call("edit", {
      path: "a.txt",
      edits: [
        { oldText: "alpha", newText: "ALPHA" },
        { oldText: "gamma", newText: "GAMMA" },
      ],
    });
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      "Edit 2 of 2: oldText was not found in a.txt. It must match exactly, including whitespace; read the file again and copy the text.\nNo edit was applied; a.txt is unchanged.",
    );
    expect(await read(ws.root, "a.txt")).toBe("alpha\nbeta\n");
  });

  it("refuses an oldText that matches several times, with the lines", async () => {
    const ws = await workspace({ "a.txt": "x = 1\ny = 2\nx = 1\n" });
    const result = await ws.call("edit", { path: "a.txt", edits: [{ oldText: "x = 1", newText: "x = 3" }] });
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      "The edit: oldText matches 2 times in a.txt (lines 1, 3). Include more surrounding lines so it matches exactly once.\nNo edit was applied; a.txt is unchanged.",
    );
    expect(await read(ws.root, "a.txt")).toBe("x = 1\ny = 2\nx = 1\n");
  });

  it("counts overlapping occurrences as ambiguous", async () => {
    const ws = await workspace({ "a.txt": "aaa" });
    const result = await ws.call("edit", { path: "a.txt", edits: [{ oldText: "aa", newText: "b" }] });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("matches 2 times");
  });

  it("refuses overlapping and no-op edits", async () => {
    const ws = await workspace({ "a.txt": "hello world\n" });
    const overlap = await ws.call("edit", {
      path: "a.txt",
      edits: [
        { oldText: "hello wo", newText: "X" },
        { oldText: "world", newText: "Y" },
      ],
    });
    expect(overlap.text).toBe(
      "Edits 1 and 2 overlap; merge them into one edit.\nNo edit was applied; a.txt is unchanged.",
    );
    const same = await ws.call("edit", { path: "a.txt", edits: [{ oldText: "hello", newText: "hello" }] });
    expect(same.text).toContain("The edit: oldText and newText are identical");
    expect(await read(ws.root, "a.txt")).toBe("hello world\n");
  });

  it("matches LF text against a CRLF file and keeps CRLF", async () => {
    const ws = await workspace({ "win.txt": "a\r\nb\r\nc\r\n" });
    const result = await ws.call("edit", { path: "win.txt", edits: [{ oldText: "a\nb", newText: "A\nB" }] });
    expect(result.isError).toBe(false);
    expect(await read(ws.root, "win.txt")).toBe("A\r\nB\r\nc\r\n");
  });

  it("accepts the single-replacement shape models often send", async () => {
    const ws = await workspace({ "a.txt": "foo\n" });
    const result = await ws.call("edit", { path: "a.txt", old_string: "foo", new_string: "bar" });
    expect(result.isError).toBe(false);
    expect(await read(ws.root, "a.txt")).toBe("bar\n");
  });

  it("reports a missing file and points to write", async () => {
    const ws = await workspace();
    const result = await ws.call("edit", { path: "new.txt", edits: [{ oldText: "a", newText: "b" }] });
    expect(result).toMatchObject({
      isError: true,
      text: "new.txt: no such file or directory. Use write to create a new file.",
    });
  });

  it("refuses binary files", async () => {
    const ws = await workspace({ "bin.dat": Buffer.from([1, 0, 2, 0, 3]) });
    const result = await ws.call("edit", { path: "bin.dat", edits: [{ oldText: "a", newText: "b" }] });
    expect(result).toMatchObject({
      isError: true,
      text: "bin.dat is a binary file; edit only changes text files.",
    });
  });
});
