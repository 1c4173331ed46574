// The executor table (shell-executors.ts) with real effects, the sandbox off so that only the
// rules stand: every example line is sent by a scripted model through the permission hook, as
// `tern run --deny-tool 'bash(rm:*)' --sandbox off` runs it, and must be denied or asked (the
// user says no) while the file it aims at survives. The same lines run without the policy show
// which of them really delete the file, so the first half cannot pass for the wrong reason.

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { agentLoop, HookRegistry } from "@tern/agent";
import type { Message, ToolResultMessage } from "@tern/ai";
import { createFaux, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import {
  installPermissions,
  type PermissionMode,
  PermissionPolicy,
  type PermissionRequest,
} from "../src/index.js";
import { EXECUTORS } from "../src/permissions/shell-executors.js";
import { callTool, verdict, workspace } from "./support.js";

const DENY = "bash(rm:*)";
const EXAMPLES = EXECUTORS.flatMap((entry) =>
  Object.entries(entry.examples).map(([command, outcome]) => ({ what: entry.what, command, outcome })),
);
/** Hang ceiling for one command (a form that waits for input or a terminal would hang). */
const CALL_TIMEOUT_S = 20;

/** Runs `command` in its own directory holding the file x. */
const inDirectory = (dir: string, command: string) => `cd '${dir}' || exit 99\n${command}`;

async function prepare(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "x"), "keep\n");
}

function text(result: ToolResultMessage): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

describe("the executor table", () => {
  it("every example is in the shared attack lists, with the same answer", () => {
    const tables = ["shell-rule-attacks.json", "shell-rule-attacks-more.json"].map(
      (name) =>
        JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8")) as {
          deny: string[];
          deny_outcomes?: Record<string, string>;
        },
    );
    const forms = tables.flatMap((table) => table.deny);
    const outcomes = Object.assign({}, ...tables.map((table) => table.deny_outcomes ?? {}));
    for (const { command, outcome } of EXAMPLES) {
      expect(forms).toContain(command);
      expect(outcomes[command]).toBe(outcome);
    }
  });

  it("asked entries have only asked examples; judged entries deny at least one", () => {
    for (const entry of EXECUTORS) {
      const outcomes = Object.values(entry.examples);
      if (entry.code === "asked") expect(outcomes.every((o) => o === "ask")).toBe(true);
      else expect(outcomes).toContain("deny");
    }
  });
});

describe(`under --deny-tool '${DENY}' in mode bypass`, () => {
  const policy = new PermissionPolicy({ mode: "bypass", deny: [DENY] });
  const answer = (command: string) => verdict(policy.check({ toolName: "bash", args: { command } }));

  it.each([
    "npm test",
    "node --test",
    "git status",
    "git log --oneline",
    "git -C sub diff --stat",
    "git commit -m 'rm x'",
    "ls | wc -l",
    "grep -rn rm src",
    "man rm",
    "echo rm x",
    "tar -xzf a.tgz",
    "ssh host uptime",
    "PATH=$PATH:bin jest",
    "make test",
    "find . -name '*.ts' | sort",
    "FOO=1 npm run build",
    "export NODE_ENV=test; npm test",
  ])("the ordinary %j is not newly asked", (command) => {
    expect(answer(command)).toBe("allow");
  });

  it.each([
    "git -c",
    "git --config-env",
    "script -c",
    "ssh -o",
    "tar --to-command",
    "rsync -e",
    "compgen -C",
    "parallel",
    "env 'BASH_FUNC_x%%=() {' bash",
  ])("the truncated %j is asked, and nothing throws", (command) => {
    expect(answer(command)).toBe("ask");
  });
});

describe.each<[PermissionMode, string[]]>([
  ["bypass", []],
  ["ask", ["bash"]],
])(`with --deny-tool '${DENY}', mode %s, allow %j, sandbox off`, (mode, allow) => {
  it(`denies or asks every example (${EXAMPLES.length}), and no file is deleted`, async () => {
    const ws = await workspace({}, { only: ["bash"], sandbox: { profile: "off" } });
    const asked: PermissionRequest[] = [];
    const hooks = new HookRegistry();
    installPermissions(hooks, {
      mode,
      allow,
      deny: [DENY],
      tools: ws.tools,
      root: ws.root,
      ask: (request) => {
        asked.push(request);
        return { allow: false, reason: "no" };
      },
    });
    const calls = [];
    for (const [index, example] of EXAMPLES.entries()) {
      const dir = path.join(ws.root, String(index));
      await prepare(dir);
      calls.push(
        fauxToolCall(
          "bash",
          { command: inDirectory(dir, example.command), timeout: CALL_TIMEOUT_S },
          `c${index}`,
        ),
      );
    }
    const faux = createFaux({ replies: [{ content: calls }, "done"] });
    const result = await agentLoop(
      [{ role: "user", content: "go", timestamp: 0 }],
      { messages: [], tools: ws.tools },
      { model: faux.model, hooks },
    ).result();
    const results = (result.messages as Message[]).filter(
      (m): m is ToolResultMessage => m.role === "toolResult",
    );
    const askedIds = new Set(asked.map((request) => request.toolCallId));
    const answers = EXAMPLES.map((example, index) => {
      const id = `c${index}`;
      const message = text(results.find((r) => r.toolCallId === id)!);
      const outcome = askedIds.has(id)
        ? "ask"
        : message.includes(`the permission rule "${DENY}" denies it`)
          ? "deny"
          : `ran: ${message}`;
      return { command: example.command, outcome, kept: existsSync(path.join(ws.root, String(index), "x")) };
    });
    expect(answers).toEqual(
      EXAMPLES.map((example) => ({ command: example.command, outcome: example.outcome, kept: true })),
    );
  }, 120_000);
});

function installed(program: string): boolean {
  return spawnSync("sh", ["-c", `command -v '${program}'`]).status === 0;
}

/**
 * Lines that delete x when nothing stops them, with the program each needs. The pager forms are
 * left out: git pages only to a terminal, so they run without effect here (harmless by luck).
 */
const TEETH: [string, string][] = [
  ["BASH_ENV=<(echo rm x) bash -c true", "bash"],
  ["echo 'rm x' > f.sh; BASH_ENV=f.sh bash -c true", "bash"],
  ["export BASH_ENV=f.sh; echo 'rm x' > f.sh; bash -c true", "bash"],
  ["echo 'rm x' > f.sh; ENV=f.sh sh -i < /dev/null", "sh"],
  ["env 'BASH_FUNC_ls%%=() { rm x; }' bash -c ls", "bash"],
  ["echo 'rm x' > f.sh; . ./f.sh", "bash"],
  ["echo 'rm x' > f.sh; bash --rcfile f.sh -i < /dev/null", "bash"],
  ["script -qc 'rm x' /dev/null", "script"],
  ["git -c alias.zz='!rm x' zz", "git"],
  ["GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.zz GIT_CONFIG_VALUE_0='!rm x' git zz", "git"],
  ["env 'a b=1' rm x", "env"],
  ["flock -n . -c 'rm x'", "flock"],
  ["chronic rm x", "chronic"],
  ["parallel rm ::: x", "parallel"],
  ["echo | pee 'rm x'", "pee"],
  ["ssh -o ProxyCommand='rm x' tern.invalid", "ssh"],
  ["rsync -e 'rm x' tern.invalid:f .", "rsync"],
  ["echo a > f; tar -cf a.tar f; tar -xf a.tar --to-command='rm x'", "tar"],
];

describe("without the policy (sandbox off) the same lines delete the file", () => {
  it.each(TEETH)("%j deletes x (needs %s)", async (command, program) => {
    if (!installed(program)) {
      console.log(`skipped ${JSON.stringify(command)}: ${program} is not installed here`);
      return;
    }
    const ws = await workspace({ "d/x": "keep\n" }, { only: ["bash"], sandbox: { profile: "off" } });
    const dir = path.join(ws.root, "d");
    await callTool(ws.tools, "bash", { command: inDirectory(dir, command), timeout: CALL_TIMEOUT_S });
    expect(existsSync(path.join(dir, "x"))).toBe(false);
    // And each is in the table the policy test runs.
    expect(EXAMPLES.map((e) => e.command)).toContain(command);
  });
});
