// Read-only bash commands in the permission policy (the forms themselves are in the attack table's
// read_only section): where the mode lets them run, that deny rules still win, the narrowest
// "always allow" rules, and a denial whose first words say how to allow the call.

import { describe, expect, it } from "vitest";
import { PermissionPolicy } from "../src/index.js";
import { suggestRules } from "../src/permissions/describe.js";
import { readOnlyCommand } from "../src/permissions/read-only.js";
import { verdict } from "./support.js";

const bash = (command: string) => ({ toolName: "bash", args: { command } });

describe("read-only commands and the modes", () => {
  it("run without asking in ask and accept-edits, not in read-only mode, and deny rules still win", () => {
    expect(verdict(new PermissionPolicy({ mode: "ask" }).check(bash("git status")))).toBe("allow");
    expect(verdict(new PermissionPolicy({ mode: "accept-edits" }).check(bash("ls -la")))).toBe("allow");
    expect(verdict(new PermissionPolicy({ mode: "read-only" }).check(bash("ls -la")))).toBe("deny");
    const denied = new PermissionPolicy({ mode: "ask", deny: ["bash(cat:*)"] });
    expect(denied.check(bash("cat .env"))).toMatchObject({ allow: false, by: "deny-rule" });
  });

  it("say why a line is not read-only", () => {
    expect(readOnlyCommand("ls | tee out")).toEqual({
      readOnly: false,
      why: "tee is not on the read-only list",
    });
    expect(readOnlyCommand("sort -o out in")).toEqual({
      readOnly: false,
      why: "sort: -o writes or runs something",
    });
    expect(readOnlyCommand("git branch -D main")).toMatchObject({ readOnly: false, why: /changes branches/ });
    expect(readOnlyCommand("echo $(id)")).toMatchObject({ readOnly: false, why: /command substitution/ });
  });
});

describe("allow rules over pipelines", () => {
  it("a rule covers a line whose other commands are read-only, and says which rule allowed it", () => {
    const policy = new PermissionPolicy({ allow: ["bash(node --test:*)"] });
    expect(policy.check(bash("node --test 2>&1 | tail -n 20"))).toEqual({
      allow: true,
      by: "allow-rule",
      rule: "bash(node --test:*)",
      reason: "allowed by bash(node --test:*)",
    });
    expect(verdict(policy.check(bash("node --test | tail -n 20 > log")))).toBe("ask");
    expect(verdict(policy.check(bash("node --test | node x.js")))).toBe("ask");
  });
});

describe("the narrowest 'always allow'", () => {
  it.each([
    ["rm -f package.json", ["bash(rm -f package.json)"]],
    ['git commit -m "fix the parser"', ["bash(git commit:*)"]],
    ["npm run build -- --watch", ["bash(npm run:*)"]],
    ["node scripts/gen.js", ["bash(node scripts/gen.js)"]],
    ["sh deploy.sh", ["bash(sh deploy.sh)"]],
    ["git -C sub push", ["bash(git -C sub push)"]],
    ["FOO=1 make", ["bash(FOO=1 make)"]],
    ["cat x | rm y && git status", ["bash(rm y)"]],
    ["ls -la", []],
    ['rm "a b"', []],
    ["rm x > log", []],
    ["rm $f", []],
  ])("%j → %j", (command, rules) => {
    expect(suggestRules("bash", { command })).toEqual(rules);
  });

  it("the suggested rule allows that call again, and not a wider one", () => {
    const policy = new PermissionPolicy({ allow: suggestRules("bash", { command: "rm -f package.json" }) });
    expect(verdict(policy.check(bash("rm -f package.json")))).toBe("allow");
    expect(verdict(policy.check(bash("rm -rf /")))).toBe("ask");
    expect(verdict(policy.check(bash("rm -f package.json other")))).toBe("ask");
  });

  it("is what a prompt offers", () => {
    const check = new PermissionPolicy().check(bash("rm -f package.json"));
    expect("ask" in check && check.request.suggestedRules).toEqual(["bash(rm -f package.json)"]);
  });
});

describe("the denial without a terminal", () => {
  it("says first what to pass to allow the call, so a display that cuts it short keeps that", async () => {
    const policy = new PermissionPolicy({ allow: Array.from({ length: 30 }, (_, i) => `bash(tool${i}:*)`) });
    const { reason } = await policy.decide(bash("rm -f package.json"));
    expect(reason.slice(0, 160)).toContain("--allow-tool 'bash(rm -f package.json)'");
    expect(reason).toContain("bash(tool29:*)");
  });

  it("falls back to naming the flags when no rule can allow the line", async () => {
    const { reason } = await new PermissionPolicy().decide(bash("rm x > log"));
    expect(reason).toMatch(/^bash needs the user's permission \(allow it with --allow-tool or --mode\)/);
  });
});
