// The changes panel's data without a browser: the route's payload read without trusting it, and a
// unified diff cut into lines by marker, its file headers dropped but a removed "--" line kept.
import { expect, it } from "vitest";
import { diffLines, fileChanges } from "../src/changes.js";

const DIFF = [
  "===================================================================",
  "--- a/notes.txt",
  "+++ b/notes.txt",
  "@@ -1,3 +1,2 @@",
  " one",
  "--- a dashed line",
  "+++ a plus line",
  "\\ No newline at end of file",
  "",
].join("\n");

it("keeps a diff's lines from its first hunk, each with its marker's kind", () => {
  expect(diffLines(DIFF)).toEqual([
    { kind: "hunk", text: "@@ -1,3 +1,2 @@" },
    { kind: "context", text: " one" },
    { kind: "del", text: "--- a dashed line" },
    { kind: "add", text: "+++ a plus line" },
    { kind: "context", text: "\\ No newline at end of file" },
  ]);
  expect(diffLines("")).toEqual([]);
  expect(diffLines("--- a/x\n+++ b/x\n")).toEqual([]);
});

it("reads the payload's files and leaves out what is malformed", () => {
  const changes = fileChanges({
    changes: [
      { path: "notes.txt", status: "modified", diff: DIFF },
      { path: "logo.png", status: "added", diff: "", note: "binary file" },
      { path: "", status: "added", diff: "" },
      { path: "x", status: "renamed", diff: "" },
      { path: 7, status: "deleted" },
      null,
      "text",
      { path: "gone.txt", status: "deleted", diff: 42 },
    ],
  });
  expect(changes.map(({ path, status, note }) => [path, status, note])).toEqual([
    ["notes.txt", "modified", undefined],
    ["logo.png", "added", "binary file"],
    ["gone.txt", "deleted", undefined],
  ]);
  expect(changes[0]!.lines).toHaveLength(5);
  expect(changes[2]!.lines).toEqual([]);
  for (const body of [null, undefined, 3, "x", {}, { changes: "no" }, { changes: {} }])
    expect(fileChanges(body)).toEqual([]);
});
