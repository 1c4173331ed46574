// Every tool refuses paths that leave the workspace root: `..` traversal, absolute paths outside,
// and symlinks inside the root whose real path is outside. Nothing outside may be read or changed.

import { mkdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { createTools } from "../src/index.js";
import { callTool, symlink, type Workspace, workspace } from "./support.js";

/** One call per tool that targets `p`. */
const targeting: Record<string, (p: string) => Record<string, unknown>> = {
  read: (p) => ({ path: p }),
  write: (p) => ({ path: p, content: "pwned" }),
  edit: (p) => ({ path: p, edits: [{ oldText: "TOP SECRET", newText: "pwned" }] }),
  ls: (p) => ({ path: p }),
  glob: (p) => ({ pattern: "**/*", path: p }),
  grep: (p) => ({ pattern: "SECRET", path: p }),
  bash: (p) => ({ command: "cat secret.txt; echo pwned > secret.txt", cwd: p }),
};

/** Paths aimed at a file (read, write, edit, grep) or at a directory (ls, glob, bash cwd). */
const fileTools = new Set(["read", "write", "edit", "grep"]);

let ws: Workspace;
beforeEach(async () => {
  ws = await workspace({ "inside.txt": "fine\n" });
  await symlink(path.join(ws.outside, "secret.txt"), path.join(ws.root, "secret-link.txt"));
  await symlink(ws.outside, path.join(ws.root, "outside-dir"));
});

async function expectUntouched(): Promise<void> {
  expect(await readFile(path.join(ws.outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
  await expect(stat(path.join(ws.outside, "new.txt"))).rejects.toThrow();
}

describe.each(Object.keys(targeting))("%s stays inside the root", (name) => {
  const target = (file: string, dir: string) => targeting[name]!(fileTools.has(name) ? file : dir);

  it("refuses .. traversal", async () => {
    const result = await ws.call(name, target("../outside/secret.txt", "../outside"));
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(
      /^Path "\.\.\/outside(\/secret\.txt)?" is outside the workspace root \(.*\)\. Use a path inside the workspace\.$/,
    );
    expect(result.text).not.toContain("TOP SECRET");
    await expectUntouched();
  });

  it("refuses traversal hidden in the middle of a path", async () => {
    const result = await ws.call(name, target("sub/../../outside/secret.txt", "sub/../../outside"));
    expect(result.isError).toBe(true);
    expect(result.text).toContain("is outside the workspace root");
    await expectUntouched();
  });

  it("refuses an absolute path outside", async () => {
    const result = await ws.call(name, target(path.join(ws.outside, "secret.txt"), ws.outside));
    expect(result.isError).toBe(true);
    expect(result.text).toContain("is outside the workspace root");
    expect(result.text).not.toContain("TOP SECRET");
    await expectUntouched();
  });

  it("refuses a symlink whose real path leaves the root", async () => {
    const result = await ws.call(name, target("secret-link.txt", "outside-dir"));
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/resolves through a symlink to .*, which is outside the workspace root/);
    expect(result.text).not.toContain("TOP SECRET");
    await expectUntouched();
  });

  it("refuses a path through a symlinked directory that leaves the root", async () => {
    const result = await ws.call(name, target("outside-dir/secret.txt", "outside-dir"));
    expect(result.isError).toBe(true);
    expect(result.text).toContain("outside the workspace root");
    expect(result.text).not.toContain("TOP SECRET");
    await expectUntouched();
  });

  it("accepts an absolute path inside the root", async () => {
    await mkdir(path.join(ws.root, "d"), { recursive: true });
    const result = await ws.call(name, target(path.join(ws.root, "inside.txt"), path.join(ws.root, "d")));
    // edit finds no "TOP SECRET" in inside.txt; every other tool succeeds.
    if (name === "edit") expect(result.text).toContain("oldText was not found in inside.txt");
    else if (name === "bash") expect(result.text).toContain("No such file");
    else expect(result.isError).toBe(false);
    expect(result.text).not.toContain("outside the workspace root");
  });
});

describe("creating files through links", () => {
  it("refuses a new file under a symlinked directory that leaves the root", async () => {
    const result = await ws.call("write", { path: "outside-dir/new.txt", content: "x" });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("outside the workspace root");
    await expectUntouched();
  });

  it("refuses a dangling symlink, whose target cannot be checked", async () => {
    await symlink(path.join(ws.outside, "new.txt"), path.join(ws.root, "dangling"));
    const result = await ws.call("write", { path: "dangling", content: "x" });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("goes through a symlink whose target does not exist");
    const nested = await ws.call("write", { path: "dangling/child.txt", content: "x" });
    expect(nested.isError).toBe(true);
    await expectUntouched();
  });

  it("allows symlinks that stay inside the root", async () => {
    await symlink(path.join(ws.root, "inside.txt"), path.join(ws.root, "alias.txt"));
    const result = await ws.call("read", { path: "alias.txt" });
    expect(result.text).toBe("     1\tfine");
  });
});

describe("a root given through a symlink", () => {
  it("accepts absolute paths spelled through the link and still refuses escapes", async () => {
    const alias = `${ws.root}-alias`;
    await symlink(ws.root, alias);
    const tools = createTools({ root: alias });
    const inside = await callTool(tools, "read", { path: path.join(alias, "inside.txt") });
    expect(inside.text).toBe("     1\tfine");
    const escaped = await callTool(tools, "read", { path: path.join(alias, "../outside/secret.txt") });
    expect(escaped.isError).toBe(true);
    expect(escaped.text).toContain("is outside the workspace root");
  });
});

describe("tree walks never leave the root", () => {
  it("glob and grep over the root skip symlinks that point outside", async () => {
    const glob = await ws.call("glob", { pattern: "**/*" });
    expect(glob.details.files).toEqual(["inside.txt"]);
    const grep = await ws.call("grep", { pattern: "SECRET" });
    expect(grep.text).toBe('No matches for "SECRET" in . (1 file searched).');
  });
});
