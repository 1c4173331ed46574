// Path rules judged on real paths: symlinks inside the workspace and a root given through a symlink
// cannot dodge a rule, one rule covers every tool touching the path (`read(.env*)` also hides the
// file from grep and glob), and files with several hard links are refused by the file tools.

import { link, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createTools, PermissionPolicy } from "../src/index.js";
import { callTool, files, symlink, verdict, workspace } from "./support.js";

const edit = (p: string) => ({
  toolName: "edit",
  args: { path: p, edits: [{ oldText: "a", newText: "b" }] },
});
const write = (p: string) => ({ toolName: "write", args: { path: p, content: "x" } });

describe("path rules follow symlinks", () => {
  it("a rule protecting protected/** stops an edit through a link to it", async () => {
    const ws = await workspace({ "protected/f.txt": "a\n", "src/ok.txt": "a\n" });
    await symlink(path.join(ws.root, "protected"), path.join(ws.root, "link"));
    const policy = new PermissionPolicy({ mode: "bypass", root: ws.root, deny: ["edit(protected/**)"] });
    expect(verdict(policy.check(edit("link/f.txt")))).toBe("deny");
    expect(verdict(policy.check(write("link/new.txt")))).toBe("deny");
    expect(verdict(policy.check(edit("src/ok.txt")))).toBe("allow");
  });

  it("an allow rule covers where the path really leads, not how it is spelt", async () => {
    const ws = await workspace({ "protected/f.txt": "a\n", "src/a.txt": "a\n" });
    await symlink(path.join(ws.root, "protected"), path.join(ws.root, "src/link"));
    const policy = new PermissionPolicy({ root: ws.root, allow: ["write(src/**)"] });
    expect(verdict(policy.check(edit("src/a.txt")))).toBe("allow");
    expect(verdict(policy.check(edit("src/link/f.txt")))).toBe("ask");
  });

  it("a root given through a symlink matches rules written with either spelling", async () => {
    const ws = await workspace({ "secret/k.txt": "a\n", "other/o.txt": "a\n" });
    const alias = `${ws.root}-alias`;
    await symlink(ws.root, alias);
    const policy = new PermissionPolicy({
      mode: "bypass",
      root: alias,
      deny: [`write(${ws.root}/secret/**)`, `write(${alias}/other/**)`, "read(notes/**)"],
    });
    expect(verdict(policy.check(write("secret/k.txt")))).toBe("deny");
    expect(verdict(policy.check(write(path.join(alias, "secret/k.txt"))))).toBe("deny");
    expect(verdict(policy.check(write("other/o.txt")))).toBe("deny");
    expect(verdict(policy.check(write(path.join(ws.root, "other/o.txt"))))).toBe("deny");
    expect(verdict(policy.check({ toolName: "read", args: { path: path.join(ws.root, "notes/n") } }))).toBe(
      "deny",
    );
    expect(verdict(policy.check(write("free.txt")))).toBe("allow");
  });
});

describe("one read rule covers every tool that reads", () => {
  it("read(.env*) keeps grep, glob and ls from showing a .env file's content", async () => {
    const ws = await workspace({
      ".env": "API_KEY=sk-live-123\n",
      "config/.env.local": "API_KEY=sk-local-456\n",
      "src/app.ts": "const key = process.env.API_KEY;\n",
    });
    const policy = new PermissionPolicy({
      mode: "bypass",
      root: ws.root,
      tools: ws.tools,
      deny: ["read(.env*)"],
    });
    const grep = await ws.call("grep", { pattern: "API_KEY" });
    expect(grep.text).toBe("src/app.ts:1:const key = process.env.API_KEY;");
    const glob = await ws.call("glob", { pattern: "**/*" });
    expect(glob.details.files).toEqual(["src/app.ts"]);
    const direct = await ws.call("grep", { pattern: "sk-", path: ".env" });
    expect(direct.isError).toBe(true);
    expect(direct.text).toBe(".env is hidden from reading by a permission rule.");
    for (const toolName of ["read", "grep", "ls", "glob"]) {
      const check = policy.check({ toolName, args: { path: "config/.env.local", pattern: "x" } });
      expect(verdict(check)).toBe("deny");
    }
    const ls = await ws.call("ls", {});
    expect(ls.text).not.toContain("sk-");
  });

  it("a symlink to a .env file is judged by where it leads", async () => {
    const ws = await workspace({ ".env": "API_KEY=sk-live-123\n" });
    await symlink(path.join(ws.root, ".env"), path.join(ws.root, "innocent.txt"));
    const policy = new PermissionPolicy({
      mode: "bypass",
      root: ws.root,
      tools: ws.tools,
      deny: ["read(.env*)"],
    });
    expect(verdict(policy.check({ toolName: "read", args: { path: "innocent.txt" } }))).toBe("deny");
    expect((await ws.call("grep", { pattern: "sk-" })).text).toBe(
      'No matches for "sk-" in . (0 files searched).',
    );
    expect((await ws.call("glob", { pattern: "*" })).details.files).toEqual([]);
  });
});

describe("hard links", () => {
  it("read, edit, write and grep refuse a file hard-linked to one outside the workspace", async () => {
    const ws = await workspace({});
    const outside = path.join(ws.outside, "secret.txt");
    await link(outside, path.join(ws.root, "linked.txt"));
    const read = await ws.call("read", { path: "linked.txt" });
    expect(read.isError).toBe(true);
    expect(read.text).toMatch(
      /^linked\.txt has 2 hard links; another of its names may be outside the workspace/,
    );
    const edited = await ws.call("edit", { path: "linked.txt", edits: [{ oldText: "TOP", newText: "NO" }] });
    expect(edited.isError).toBe(true);
    const written = await ws.call("write", { path: "linked.txt", content: "changed" });
    expect(written.isError).toBe(true);
    expect((await ws.call("grep", { pattern: "SECRET" })).text).toBe(
      'No matches for "SECRET" in . (0 files searched).',
    );
    expect(await readFile(outside, "utf8")).toBe("TOP SECRET\n");
  });

  it("are opened when the workspace allows them", async () => {
    const ws = await workspace({});
    await mkdir(path.join(ws.root, "d"));
    await files(ws.root, { "d/a.txt": "shared\n" });
    await link(path.join(ws.root, "d/a.txt"), path.join(ws.root, "b.txt"));
    const tools = createTools({ root: ws.root, allowHardLinks: true });
    expect((await callTool(tools, "read", { path: "b.txt" })).text).toBe("     1\tshared");
  });
});
