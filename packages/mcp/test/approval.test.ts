// Project servers need the user's approval once per project and configuration.

import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configHash } from "../src/approval.js";
import { FileApprovalStore, type McpServerEntry, pendingApprovals } from "../src/index.js";

function entry(name: string, command: string, scope: McpServerEntry["scope"] = "project"): McpServerEntry {
  return { name, scope, file: "/p/.mcp.json", config: { type: "stdio", command, args: [], env: {} } };
}

function setup() {
  const root = mkdtempSync(join(tmpdir(), "tern-mcp-approval-"));
  const project = join(root, "project");
  mkdirSync(project);
  return { root, project, store: new FileApprovalStore({ home: join(root, "home") }) };
}

describe("project server approval", () => {
  it("asks once for project servers only, and again when the entry changes", async () => {
    const { project, store } = setup();
    const servers = [entry("fs", "srv-fs"), entry("mine", "srv", "user"), entry("db", "srv-db")];
    expect((await pendingApprovals(servers, project, store)).map((s) => s.name)).toEqual(["fs", "db"]);
    await store.approve(project, "fs", servers[0]!.config);
    expect((await pendingApprovals(servers, project, store)).map((s) => s.name)).toEqual(["db"]);
    const edited = [entry("fs", "srv-fs --evil")];
    expect((await pendingApprovals(edited, project, store)).map((s) => s.name)).toEqual(["fs"]);
  });

  it("keys approvals by the project's real path", async () => {
    const { root, project, store } = setup();
    const link = join(root, "link");
    symlinkSync(project, link);
    await store.approve(link, "fs", entry("fs", "srv").config);
    expect(await store.isApproved(project, "fs", entry("fs", "srv").config)).toBe(true);
    expect(await store.isApproved(join(root, "other"), "fs", entry("fs", "srv").config)).toBe(false);
  });

  it("hashes configurations independently of key order", () => {
    expect(configHash({ type: "stdio", command: "a", args: ["x"], env: { A: "1", B: "2" } })).toBe(
      configHash({ env: { B: "2", A: "1" }, args: ["x"], command: "a", type: "stdio" } as never),
    );
  });

  it("a corrupt approvals file approves nothing and is not overwritten", async () => {
    const { root, project } = setup();
    const file = join(root, "approvals.json");
    writeFileSync(file, "{ not json");
    const store = new FileApprovalStore({ file });
    expect(await store.isApproved(project, "fs", entry("fs", "srv").config)).toBe(false);
    await expect(store.approve(project, "fs", entry("fs", "srv").config)).rejects.toThrow(
      /corrupt.*approvals\.json|approvals.*corrupt/,
    );
    expect(readFileSync(file, "utf8")).toBe("{ not json");
  });
});
