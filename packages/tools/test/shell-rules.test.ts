// The shell-rule attack tables, run through the permission rules only (nothing is executed):
// every deny form is denied or asked under the deny rule, never allowed; every allow form is
// allowed without asking exactly when the table says so; every read-only form runs without a
// question in mode ask exactly when the table says it is read-only.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PermissionPolicy } from "../src/index.js";
import { verdict } from "./support.js";

interface AttackTable {
  deny_rule: string;
  deny: string[];
  allow: { rule: string; command: string; allowed_without_asking: boolean }[];
  not_rm?: string[];
  /** The exact answer some deny forms must get under deny_rule (mode bypass). */
  deny_outcomes?: Record<string, "deny" | "ask">;
  /** Lines in mode ask with no rules: only the read-only ones run without a question. */
  read_only?: { command: string; read_only: boolean }[];
}

const TABLES = ["shell-rule-attacks.json", "shell-rule-attacks-more.json"];

function load(name: string): AttackTable {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8")) as AttackTable;
}

const bash = (command: string) => ({ toolName: "bash", args: { command } });

for (const name of TABLES) {
  const table = load(name);
  describe(`${name}: deny forms under ${table.deny_rule} (mode bypass)`, () => {
    const policy = new PermissionPolicy({ mode: "bypass", deny: [table.deny_rule] });
    it.each(table.deny)("%j is denied or asked", (command) => {
      expect(verdict(policy.check(bash(command)))).not.toBe("allow");
    });
  });

  const outcomes = Object.entries(table.deny_outcomes ?? {});
  if (outcomes.length > 0)
    describe(`${name}: deny forms with an exact answer`, () => {
      const policy = new PermissionPolicy({ mode: "bypass", deny: [table.deny_rule] });
      const denyForms = TABLES.flatMap((other) => load(other).deny);
      it.each(outcomes)("%j → %s", (command, outcome) => {
        expect(denyForms).toContain(command);
        expect(verdict(policy.check(bash(command)))).toBe(outcome);
      });
    });

  if (table.read_only)
    describe(`${name}: read-only forms (mode ask, no rules)`, () => {
      const policy = new PermissionPolicy({ mode: "ask" });
      it.each(table.read_only!)("$command → read-only: $read_only", (form) => {
        const check = policy.check(bash(form.command));
        expect(verdict(check)).toBe(form.read_only ? "allow" : "ask");
        if (form.read_only) expect(check).toMatchObject({ by: "mode", reason: "read-only command" });
      });
    });

  describe(`${name}: allow forms`, () => {
    it.each(table.allow)("$rule, $command → allowed without asking: $allowed_without_asking", (form) => {
      const policy = new PermissionPolicy({ mode: "ask", allow: [form.rule] });
      const outcome = verdict(policy.check(bash(form.command)));
      expect(outcome === "allow").toBe(form.allowed_without_asking);
      expect(outcome).not.toBe("deny");
    });
  });
}

describe("deny and allow together", () => {
  it("deny wins over a bare allow, and an unknown command name asks even in bypass", () => {
    const policy = new PermissionPolicy({ mode: "bypass", allow: ["bash"], deny: ["bash(rm:*)"] });
    expect(verdict(policy.check(bash("/bin/rm x")))).toBe("deny");
    expect(verdict(policy.check(bash("x=rm; $x v")))).toBe("ask");
    expect(verdict(policy.check(bash("ls -la")))).toBe("allow");
  });

  it("an unsure deny asks without offering an 'always allow' rule", () => {
    const policy = new PermissionPolicy({ deny: ["bash(rm:*)"] });
    const check = policy.check(bash('eval "$cmd"'));
    expect("ask" in check && check.request.suggestedRules).toEqual([]);
    expect("ask" in check && check.request.summary).toMatch(/cannot tell what this runs/);
  });

  it("without a terminal an unsure deny is denied, and the model is told why", async () => {
    const policy = new PermissionPolicy({ mode: "bypass", deny: ["bash(rm:*)"] });
    expect(await policy.decide(bash("x=rm; $x v"))).toEqual({
      allow: false,
      by: "no-terminal",
      reason:
        'the rule "bash(rm:*)" cannot tell what this command runs: the command name $x is only known when it runs, and tern runs without a terminal to ask, so it was denied. Do not retry it as is; write the command so every program it runs is named literally, without eval or variables as command names.',
    });
  });

  it("harmless lookups of a denied name are not denied", () => {
    const policy = new PermissionPolicy({ mode: "bypass", deny: ["bash(rm:*)"] });
    expect(verdict(policy.check(bash("command -v rm")))).toBe("allow");
    expect(verdict(policy.check(bash("echo 'rm -rf /'")))).toBe("allow");
    expect(verdict(policy.check(bash("man rm")))).toBe("allow");
  });
});

describe("hostile input", () => {
  const policy = new PermissionPolicy({ mode: "bypass", deny: ["bash(rm:*)"] });
  const allowLs = new PermissionPolicy({ allow: ["bash(ls:*)"] });
  it.each([
    ["deep nesting", `${"$(".repeat(20_000)}rm x${")".repeat(20_000)}`],
    ["a huge line", `ls ${"a".repeat(200_000)}; rm x`],
    ["a NUL byte", "ls\0; rm x"],
    ["unbalanced quotes", "ls 'a; rm x"],
  ])("%s is denied or asked, never allowed, and nothing throws", (_name, command) => {
    expect(verdict(policy.check(bash(command)))).not.toBe("allow");
    expect(verdict(allowLs.check(bash(command)))).toBe("ask");
  });
});
