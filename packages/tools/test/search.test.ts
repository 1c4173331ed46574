import { mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { symlink, workspace } from "./support.js";

const project = {
  ".gitignore": "dist/\n*.log\n!keep.log\n",
  "README.md": "# Demo\nTODO: write docs\n",
  "app.log": "TODO in a log\n",
  "keep.log": "TODO kept\n",
  "dist/bundle.js": "TODO built\n",
  "node_modules/dep/index.js": "TODO dependency\n",
  ".git/HEAD": "ref: TODO\n",
  "src/main.ts": "import { util } from './util';\n// TODO: main\nutil();\n",
  "src/util.ts": "export function util() {\n  return 1; // todo lowercase\n}\n",
  "src/.hidden.ts": "// TODO hidden\n",
  "src/gen/.gitignore": "*.gen.ts\n",
  "src/gen/a.gen.ts": "TODO generated\n",
  "src/gen/b.ts": "TODO not generated\n",
};

describe("ls", () => {
  it("lists one directory, dirs with a slash, symlinks with their target", async () => {
    const ws = await workspace({ "b.txt": "bb", "a/x.txt": "", ".env": "K=V" });
    await symlink("b.txt", path.join(ws.root, "link"));
    const result = await ws.call("ls", {});
    expect(result.text).toBe([".env", "a/", "b.txt", "link -> b.txt"].join("\n"));
    expect(result.details.entries).toEqual([
      { name: ".env", type: "file", size: 3 },
      { name: "a", type: "directory" },
      { name: "b.txt", type: "file", size: 2 },
      { name: "link", type: "symlink" },
    ]);
    expect((await ws.call("ls", { path: "a" })).text).toBe("x.txt");
  });

  it("caps entries, says so, and refuses files", async () => {
    const tree = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}.txt`, ""]));
    const ws = await workspace(tree, { maxListEntries: 3 });
    const result = await ws.call("ls", { path: "." });
    expect(result.text).toBe(
      "f0.txt\nf1.txt\nf2.txt\n\n[Showing 3 of 8 entries. Use glob with a pattern to narrow down.]",
    );
    expect(result.details.truncated).toBe(true);
    const file = await ws.call("ls", { path: "f0.txt" });
    expect(file).toMatchObject({
      isError: true,
      text: "f0.txt is a file, not a directory. Use read to see it.",
    });
  });
});

describe("glob", () => {
  it("matches patterns, respects .gitignore (nested, negated) and skips .git and node_modules", async () => {
    const ws = await workspace(project);
    const all = await ws.call("glob", { pattern: "**/*" });
    expect(all.text.split("\n")).toEqual([
      ".gitignore",
      "README.md",
      "keep.log",
      "src/.hidden.ts",
      "src/gen/.gitignore",
      "src/gen/b.ts",
      "src/main.ts",
      "src/util.ts",
    ]);
  });

  it("treats a pattern without a slash as a file name at any depth", async () => {
    const ws = await workspace(project);
    expect((await ws.call("glob", { pattern: "*.ts" })).details.files).toEqual([
      "src/.hidden.ts",
      "src/gen/b.ts",
      "src/main.ts",
      "src/util.ts",
    ]);
    expect((await ws.call("glob", { pattern: "src/*.ts" })).details.files).toEqual([
      "src/.hidden.ts",
      "src/main.ts",
      "src/util.ts",
    ]);
    expect((await ws.call("glob", { pattern: "*.{md,log}" })).details.files).toEqual([
      "README.md",
      "keep.log",
    ]);
  });

  it("searches below a path and returns root-relative paths", async () => {
    const ws = await workspace(project);
    const result = await ws.call("glob", { pattern: "*.ts", path: "src/gen" });
    expect(result.text).toBe("src/gen/b.ts");
  });

  it("walks an explicitly named ignored directory", async () => {
    const ws = await workspace(project);
    expect((await ws.call("glob", { pattern: "**/*.js", path: "dist" })).details.files).toEqual([
      "dist/bundle.js",
    ]);
  });

  it("caps the number of results", async () => {
    const tree = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`d/f${String(i).padStart(2, "0")}.txt`, ""]),
    );
    const ws = await workspace(tree, { search: { maxGlobResults: 5 } });
    const result = await ws.call("glob", { pattern: "**/*.txt" });
    expect(result.details.files).toEqual(["d/f00.txt", "d/f01.txt", "d/f02.txt", "d/f03.txt", "d/f04.txt"]);
    expect(result.details.truncated).toBe(true);
    expect(result.text).toContain("[Showing the first 5 matches. Use a narrower pattern or path.]");
  });

  it("says when nothing matches", async () => {
    const ws = await workspace(project);
    expect((await ws.call("glob", { pattern: "*.py" })).text).toBe('No files match "*.py" in ..');
  });
});

describe("grep", () => {
  it("finds regex matches as path:line:text, respecting .gitignore", async () => {
    const ws = await workspace(project);
    const result = await ws.call("grep", { pattern: "TODO" });
    expect(result.isError).toBe(false);
    expect(result.text).toBe(
      [
        "README.md:2:TODO: write docs",
        "keep.log:1:TODO kept",
        "src/.hidden.ts:1:// TODO hidden",
        "src/gen/b.ts:1:TODO not generated",
        "src/main.ts:2:// TODO: main",
      ].join("\n"),
    );
    expect(result.details).toMatchObject({ filesWithMatches: 5, truncated: false });
    expect(result.details.matches[0]).toEqual({ path: "README.md", line: 2, text: "TODO: write docs" });
  });

  it("filters by file glob, ignores case on request and searches one file", async () => {
    const ws = await workspace(project);
    const ts = await ws.call("grep", { pattern: "todo", glob: "*.ts", ignoreCase: true });
    expect(ts.details.matches.map((m: { path: string; line: number }) => `${m.path}:${m.line}`)).toEqual([
      "src/.hidden.ts:1",
      "src/gen/b.ts:1",
      "src/main.ts:2",
      "src/util.ts:2",
    ]);
    const caseSensitive = await ws.call("grep", { pattern: "todo", glob: "*.ts" });
    expect(caseSensitive.text).toBe("src/util.ts:2:  return 1; // todo lowercase");
    const one = await ws.call("grep", { pattern: "util", path: "src/main.ts" });
    expect(one.text).toBe("src/main.ts:1:import { util } from './util';\nsrc/main.ts:3:util();");
  });

  it("shows context lines and separates groups", async () => {
    const lines = ["a", "match 1", "b", "c", "d", "e", "match 2", "f"].join("\n");
    const ws = await workspace({ "f.txt": lines });
    const result = await ws.call("grep", { pattern: "^match", context: 1 });
    expect(result.text).toBe(
      ["f.txt-1-a", "f.txt:2:match 1", "f.txt-3-b", "--", "f.txt-6-e", "f.txt:7:match 2", "f.txt-8-f"].join(
        "\n",
      ),
    );
    const merged = await ws.call("grep", { pattern: "^match", context: 3 });
    expect(merged.text.split("\n")).toHaveLength(8);
    expect(merged.text).not.toContain("--");
  });

  it("caps matches and reports the cut", async () => {
    const ws = await workspace(
      { "a.txt": "hit\nhit\nhit\n", "b.txt": "hit\nhit\n" },
      { search: { maxGrepMatches: 4 } },
    );
    const result = await ws.call("grep", { pattern: "hit" });
    expect(result.details.matches).toHaveLength(4);
    expect(result.details.truncated).toBe(true);
    expect(result.text).toContain(
      "[Stopped at 4 matching lines. Narrow the pattern, path or glob to see the rest.]",
    );
    // Exactly as many matches as the limit is not a cut.
    const exact = await ws.call("grep", { pattern: "hit", path: "a.txt", limit: 3 });
    expect(exact.details).toMatchObject({ truncated: false });
    expect(exact.details.matches).toHaveLength(3);
    expect(exact.text).toBe("a.txt:1:hit\na.txt:2:hit\na.txt:3:hit");
  });

  it("skips binary files and treats literal patterns literally", async () => {
    const ws = await workspace({
      "bin.dat": Buffer.concat([Buffer.from("needle"), Buffer.from([0, 1, 2])]),
      "t.txt": "a.b\naxb\n",
    });
    expect((await ws.call("grep", { pattern: "needle" })).text).toBe(
      'No matches for "needle" in . (1 file searched).',
    );
    expect((await ws.call("grep", { pattern: "a.b", literal: true })).text).toBe("t.txt:1:a.b");
    expect((await ws.call("grep", { pattern: "a.b" })).details.matches).toHaveLength(2);
  });

  it("reports an invalid regular expression", async () => {
    const ws = await workspace({ "a.txt": "x" });
    const result = await ws.call("grep", { pattern: "(unclosed" });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(
      /^Invalid regular expression: .*\. Escape special characters or set literal: true\.$/,
    );
  });

  it("does not enter symlinked directories", async () => {
    const ws = await workspace({ "src/a.txt": "word\n" });
    await mkdir(path.join(ws.root, "other"));
    await symlink(path.join(ws.root, "src"), path.join(ws.root, "other/src-link"));
    const result = await ws.call("grep", { pattern: "word" });
    expect(result.text).toBe("src/a.txt:1:word");
  });
});
