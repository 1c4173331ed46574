// Project instructions through the library: order (user, root down to cwd), the git root, the
// cap and its note, and every bad file (a symlink out of the tree, a dangling link, binary,
// unreadable, a directory) skipped with a warning, never a throw.
import { chmod, mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { formatInstructions, loadInstructions, workspaceRoot } from "../src/index.js";
import { files, symlink, tempDir } from "./support.js";

describe("loadInstructions", () => {
  it("reads the user's file, then root down to the cwd, each framed with its path", async () => {
    const home = await tempDir();
    const repo = await tempDir();
    await mkdir(path.join(repo, ".git"));
    await files(home, { "AGENTS.md": "user says hi\n" });
    await files(repo, {
      "AGENTS.md": "root rules",
      "CLAUDE.md": "claude rules",
      ".github/copilot-instructions.md": "copilot rules",
      "pkg/AGENTS.md": "pkg rules",
      "pkg/deep/AGENTS.md": "deep rules",
      "other/AGENTS.md": "not on the way",
    });
    const cwd = path.join(repo, "pkg", "deep");
    const loaded = loadInstructions({ cwd, home });
    expect(loaded.root).toBe(repo);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.files.map((file) => [path.relative(repo, file.path), file.scope])).toEqual([
      [path.relative(repo, path.join(home, "AGENTS.md")), "user"],
      ["AGENTS.md", "project"],
      ["CLAUDE.md", "project"],
      [".github/copilot-instructions.md", "project"],
      ["pkg/AGENTS.md", "project"],
      ["pkg/deep/AGENTS.md", "project"],
    ]);
    const text = formatInstructions(loaded.files);
    expect(text).toContain(
      `<instructions path="${path.join(repo, "pkg", "AGENTS.md")}" scope="project">\npkg rules\n</instructions>`,
    );
    expect(text.indexOf("user says hi")).toBeLessThan(text.indexOf("root rules"));
    expect(text.indexOf("pkg rules")).toBeLessThan(text.indexOf("deep rules"));
    expect(text).not.toContain("not on the way");
  });

  it("outside a repository the cwd is the root: nothing above it is read", async () => {
    const parent = await tempDir();
    await files(parent, { "AGENTS.md": "parent", "work/AGENTS.md": "work" });
    const cwd = path.join(parent, "work");
    expect(workspaceRoot(cwd)).toBe(cwd);
    const loaded = loadInstructions({ cwd });
    expect(loaded.files.map((file) => file.text)).toEqual(["work"]);
  });

  it("caps a large file with a note and a warning naming the host's setting; maxBytes moves the cap", async () => {
    const cwd = await tempDir();
    await files(cwd, { "AGENTS.md": `${"é".repeat(100)}` });
    const loaded = loadInstructions({ cwd, maxBytes: 51, maxBytesSetting: "TERN_INSTRUCTIONS_MAX_BYTES" });
    const [file] = loaded.files;
    expect(file).toMatchObject({ bytes: 200, capped: true });
    // 51 bytes split the 26th "é": only whole characters are kept.
    expect(file!.text).toBe(
      `${"é".repeat(25)}\n[tern: this file has 200 bytes; only the first 51 were loaded]`,
    );
    expect(loaded.warnings).toEqual([
      expect.stringMatching(/200 bytes, only the first 51 loaded \(TERN_INSTRUCTIONS_MAX_BYTES/),
    ]);
    expect(loadInstructions({ cwd, maxBytes: 51 }).warnings).toEqual([
      expect.stringMatching(/only the first 51 loaded \(maxBytes raises the cap\)/),
    ]);
    const whole = loadInstructions({ cwd });
    expect(whole.files[0]).toMatchObject({ capped: false, text: "é".repeat(100) });
  });

  it("reads no cap from the environment: that is the host's to map", async () => {
    const cwd = await tempDir();
    await files(cwd, { "AGENTS.md": "x".repeat(100) });
    vi.stubEnv("TERN_INSTRUCTIONS_MAX_BYTES", "10");
    try {
      const loaded = loadInstructions({ cwd });
      expect(loaded.files[0]).toMatchObject({ capped: false });
      expect(loaded.warnings).toEqual([]);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("follows a link inside the tree once; skips links out of it, dangling links, binary and directories", async () => {
    const cwd = await tempDir();
    const outside = await tempDir();
    await mkdir(path.join(cwd, ".git"));
    await files(outside, { "secret.md": "do not read" });
    await files(cwd, { "AGENTS.md": "the rules", "sub/.github/x": "" });
    await symlink(path.join(cwd, "AGENTS.md"), path.join(cwd, "CLAUDE.md"));
    await mkdir(path.join(cwd, "sub", "AGENTS.md"));
    await files(cwd, { "sub/CLAUDE.md": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]) });
    await symlink(
      path.join(outside, "secret.md"),
      path.join(cwd, "sub", ".github", "copilot-instructions.md"),
    );
    const deeper = path.join(cwd, "sub", "deeper");
    await mkdir(deeper);
    await symlink(path.join(cwd, "missing.md"), path.join(deeper, "AGENTS.md"));
    const loaded = loadInstructions({ cwd: deeper });
    expect(loaded.files.map((file) => file.text)).toEqual(["the rules"]);
    expect(loaded.warnings).toEqual([
      expect.stringMatching(/sub\/AGENTS\.md: not a regular file; skipped/),
      expect.stringMatching(/sub\/CLAUDE\.md: binary, not text; skipped/),
      expect.stringMatching(/copilot-instructions\.md: a symlink to .*secret\.md, outside .*; skipped/),
      expect.stringMatching(/deeper\/AGENTS\.md: a symlink to nothing; skipped/),
    ]);
  });

  it.skipIf(process.getuid?.() === 0)("an unreadable file is a warning", async () => {
    const cwd = await tempDir();
    await files(cwd, { "AGENTS.md": "secret" });
    await chmod(path.join(cwd, "AGENTS.md"), 0o000);
    const loaded = loadInstructions({ cwd });
    expect(loaded.files).toEqual([]);
    expect(loaded.warnings[0]).toMatch(/AGENTS\.md: .*EACCES.*; skipped/);
  });

  it("loads nothing and formats nothing when there are no files", async () => {
    const cwd = await tempDir();
    const loaded = loadInstructions({ cwd });
    expect(loaded).toEqual({ root: cwd, files: [], warnings: [] });
    expect(formatInstructions(loaded.files)).toBe("");
  });
});
