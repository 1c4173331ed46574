// The shell-rule attack table run inside the sandbox with no rules at all (the tool called
// directly, as in mode bypass): every deny and not_rm form runs against files in a directory
// OUTSIDE the workspace (`cd` there first, then the form verbatim), and every file must survive.
// The same forms run with the sandbox off in a twin directory as a control, which shows the
// forms really delete when nothing stops them: the sandbox, not a quirk of the test, holds.
// The directory lives under /var/tmp because the sandbox gives /tmp a private tmpfs, and a hidden
// directory would survive for the wrong reason; the test checks it is visible inside.

import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnyBuiltinTool, createTools } from "../src/index.js";
import { callTool } from "./support.js";
import { SANDBOX_SKIP_REASON } from "./support-sandbox.js";

interface AttackTable {
  deny: string[];
  not_rm?: string[];
}

const FIXTURES = path.join(import.meta.dirname, "fixtures");
const BASE_PARENT = "/var/tmp";
const CONTENT = "keep\n";
/** Hang ceiling per form (two bash calls): generous, as the table grows and the machine may be loaded. */
const FORM_CEILING_MS = 5_000;
/** Forms in flight at once: bash processes mostly wait on bubblewrap's namespace set-up. */
const FORMS_AT_ONCE = 4;

function loadForms(): { kind: string; command: string }[] {
  const tables: AttackTable[] = [
    JSON.parse(readFileSync(path.join(FIXTURES, "shell-rule-attacks.json"), "utf8")),
  ];
  const more = path.join(FIXTURES, "shell-rule-attacks-more.json");
  if (existsSync(more)) tables.push(JSON.parse(readFileSync(more, "utf8")));
  return tables.flatMap((table) => [
    ...table.deny.map((command) => ({ kind: "deny", command })),
    ...(table.not_rm ?? []).map((command) => ({ kind: "not_rm", command })),
  ]);
}

const FORMS = loadForms();

/** The files a form may aim at: its v-numbers and `x`. */
function targets(command: string): string[] {
  return [...new Set(["x", ...(command.match(/\bv\d+\b/g) ?? [])])].sort();
}

async function prepare(dir: string, names: string[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const name of names) await writeFile(path.join(dir, name), CONTENT);
}

/** Names in `dir` that are gone or changed. */
async function damage(dir: string, names: string[]): Promise<string[]> {
  const present = new Set(await readdir(dir));
  const damaged: string[] = [];
  for (const name of names) {
    if (!present.has(name) || (await readFile(path.join(dir, name), "utf8")) !== CONTENT) damaged.push(name);
  }
  return damaged;
}

/** Calls `each` on every item, at most `limit` at a time. */
async function eachAtOnce<T>(items: Iterable<T>, limit: number, each: (item: T) => Promise<void>) {
  const queue = [...items];
  const lane = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await each(item);
  };
  await Promise.all(Array.from({ length: limit }, lane));
}

const run = (tools: AnyBuiltinTool[], dir: string, command: string) =>
  callTool(tools, "bash", { command: `cd '${dir}' || exit 99\n${command}`, timeout: 20 });

describe.skipIf(SANDBOX_SKIP_REASON !== undefined)(
  `the attack table inside the sandbox${SANDBOX_SKIP_REASON ? ` (${SANDBOX_SKIP_REASON})` : ""}`,
  () => {
    let base: string;
    let sandboxed: AnyBuiltinTool[];
    let unconfined: AnyBuiltinTool[];
    beforeAll(async () => {
      base = await mkdtemp(path.join(BASE_PARENT, "tern-attacks-"));
      const root = path.join(base, "workspace");
      await mkdir(root);
      sandboxed = createTools({ root, only: ["bash"] });
      unconfined = createTools({ root, only: ["bash"], sandbox: { profile: "off" } });
    });
    afterAll(async () => {
      await rm(base, { recursive: true, force: true });
      await rm("/tmp/moved_v49", { force: true });
    });

    it("sees the outside directory (read-only, not hidden)", async () => {
      const dir = path.join(base, "visible");
      await prepare(dir, ["v0"]);
      const result = await run(sandboxed, dir, "cat v0; rm v0");
      expect(result.text).toContain("keep");
      expect(result.text).toMatch(/Read-only file system/);
      expect(await damage(dir, ["v0"])).toEqual([]);
    });

    it("cannot reach outside files through a hard link or a symlink made in the workspace", async () => {
      const dir = path.join(base, "linked");
      await prepare(dir, ["v0"]);
      const result = await callTool(sandboxed, "bash", {
        command: `ln '${dir}/v0' hard; ln -s '${dir}/v0' soft && echo pwned > soft; ls`,
      });
      expect(result.text).toMatch(/Invalid cross-device link/);
      expect(result.text).toMatch(/Read-only file system/);
      expect(await damage(dir, ["v0"])).toEqual([]);
    });

    it(
      `holds every form (${FORMS.length}); the control without the sandbox shows which really delete`,
      async () => {
        const held: string[] = [];
        const broken: string[] = [];
        const deletedWithoutSandbox: string[] = [];
        // Several forms at once: each has its own directories and its own bash processes, and
        // every form stays inside its directory, so no outcome depends on another form.
        await eachAtOnce(FORMS.entries(), FORMS_AT_ONCE, async ([index, form]) => {
          const names = targets(form.command);
          const inside = path.join(base, "sandboxed", String(index));
          const control = path.join(base, "control", String(index));
          await prepare(inside, names);
          await prepare(control, names);
          await Promise.all([run(sandboxed, inside, form.command), run(unconfined, control, form.command)]);
          ((await damage(inside, names)).length === 0 ? held : broken).push(form.command);
          if ((await damage(control, names)).length > 0) deletedWithoutSandbox.push(form.command);
        });
        console.log(
          `sandbox attack table: ${held.length} of ${FORMS.length} forms held; ` +
            `${deletedWithoutSandbox.length} of them delete or move the file without the sandbox`,
        );
        expect(broken).toEqual([]);
        // The control proves the setup: plain and disguised rm forms do delete when unconfined.
        for (const command of ["rm v1", "/bin/rm -rf v2", "x=rm; $x v4", "unlink v33"])
          expect(deletedWithoutSandbox).toContain(command);
      },
      FORMS.length * FORM_CEILING_MS,
    );
  },
);
