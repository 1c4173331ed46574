// Agent Skills through the built `tern`: `tern skills ls` (+ --json) with precedence, a duplicate
// and a bad skill; the run header and the skills_loaded --json line; progressive disclosure seen
// at the scripted model (the body is in no request before the skill tool's call and is in the one
// after it); chat's banner and /skills; a skill's script goes through bash and its permissions like any other command; and a
// project skill's allowed-tools widen nothing until `tern hooks approve`.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ScriptServer } from "@tern/ai/testing";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { startChat, terminalIt } from "./support/chat-terminal.js";
import { textReply, toolReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir, ternEnv } from "./support/tern.js";

beforeAll(ensureBuilt);
// Each test runs up to five tern processes in a row: a higher ceiling for a hang on a loaded
// machine, not a deadline anything waits for.
vi.setConfig({ testTimeout: 180_000 });

/** What the policy tells the model about a call it had to ask about with nobody to ask. */
const NOBODY_TO_ASK = "without a terminal to ask (permission mode";
const BODY = "SECRET-STEPS: run scripts/make.sh and report its output.";

/** Writes `<dir>/<name>/SKILL.md` (and any extra files of the skill's folder). */
function skill(dir: string, name: string, front: string, body = BODY, extra: Record<string, string> = {}) {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, "SKILL.md"), `---\nname: ${name}\n${front}---\n${body}\n`);
  for (const [file, text] of Object.entries(extra)) {
    mkdirSync(join(dir, name, file, ".."), { recursive: true });
    writeFileSync(join(dir, name, file), text);
  }
}

function workspace() {
  const home = tempDir();
  const work = tempDir();
  mkdirSync(join(work, ".git"));
  skill(join(work, ".tern", "skills"), "make", "description: Builds the project with its script.\n", BODY, {
    "scripts/make.sh": "touch made-by-script.txt\n",
  });
  skill(join(work, ".claude", "skills"), "make", "description: The shadowed one.\n");
  skill(join(work, ".agents", "skills"), "review", "description: Reviews a change.\n");
  skill(join(home, "skills"), "notes", "description: Keeps notes.\n");
  skill(join(work, ".tern", "skills"), "broken", "description: [unclosed\n");
  return { home, work };
}

/** Every request the model got, as JSON text. */
const sent = (server: ScriptServer) => server.requests.map((request) => JSON.stringify(request.body));

describe("tern skills ls", () => {
  it("lists name, description, file and status in precedence order; warns for the duplicate and the bad one", async () => {
    const { home, work } = workspace();
    const env = ternEnv({ TERN_HOME: home });
    const listed = await runTern(["skills", "ls", "-C", work], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split("\n").filter((line) => !line.startsWith(" "))).toEqual([
      "make    Builds the project with its script.",
      "review  Reviews a change.",
      "notes   Keeps notes.",
      "",
    ]);
    expect(listed.stdout).toContain(`project · ${join(work, ".tern/skills/make/SKILL.md")} · instructions`);
    expect(listed.stdout).toContain(`user · ${join(home, "skills/notes/SKILL.md")} · instructions`);
    expect(listed.stderr).toContain(
      `skill "make": ${join(work, ".claude/skills/make/SKILL.md")} is ignored; ${join(work, ".tern/skills/make/SKILL.md")} has the same name and wins`,
    );
    expect(listed.stderr).toMatch(/skill .*broken\/SKILL\.md: the front matter is not valid YAML.*; skipped/);

    const json = await runTern(["skills", "--json", "-C", work], { env });
    expect(json.code, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.skills.map((row: { name: string; scope: string }) => [row.name, row.scope])).toEqual([
      ["make", "project"],
      ["review", "project"],
      ["notes", "user"],
    ]);
    expect(parsed.skills[0]).toMatchObject({
      description: "Builds the project with its script.",
      path: join(work, ".tern/skills/make/SKILL.md"),
      status: "instructions",
    });
    expect(parsed.warnings).toHaveLength(2);
    const bad = await runTern(["skills", "rm"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown skills action "rm"');
  });
});

describe("skills in tern run", () => {
  it("names them in the header and in a skills_loaded --json line", async () => {
    const { home, work } = workspace();
    const server = await startScriptedModel([textReply("ok"), textReply("ok")]);
    const env = scriptedModelEnv(server, { TERN_HOME: home });
    const run = await runTern(["run", "hi"], { env, cwd: work });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("tern · skills (3): make, review, notes");
    const json = await runTern(["run", "--json", "hi"], { env, cwd: work });
    const lines = json.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: "agent_start" });
    const loaded = lines.find((line) => line.type === "skills_loaded");
    expect(loaded.skills).toEqual([
      {
        name: "make",
        path: join(work, ".tern/skills/make/SKILL.md"),
        scope: "project",
        status: "instructions",
      },
      expect.objectContaining({ name: "review" }),
      expect.objectContaining({ name: "notes", scope: "user" }),
    ]);
  });

  it("puts only names and descriptions in the prompt; the body arrives with the skill tool's result", async () => {
    const { server } = await buildIt([
      toolReply([{ name: "skill", args: { name: "make" } }]),
      textReply("Read the skill."),
    ]);
    const [before, after] = sent(server);
    expect(before).toContain("- make: Builds the project with its script.");
    expect(before).toContain("- notes: Keeps notes.");
    expect(before).not.toContain("SECRET-STEPS");
    expect(after).toContain("SECRET-STEPS");
    expect(after).toContain(".tern/skills/make/scripts/make.sh");
  });

  it("a skill's script runs through bash under ask mode: asked like any bash call, so denied without a person", async () => {
    const { server, work } = await buildIt([
      toolReply([{ name: "skill", args: { name: "make" } }]),
      toolReply([{ name: "bash", args: { command: "sh .tern/skills/make/scripts/make.sh" } }]),
      textReply("Could not run it."),
    ]);
    expect(existsSync(join(work, "made-by-script.txt"))).toBe(false);
    expect(sent(server)[2]).toContain(NOBODY_TO_ASK);
  });
});

describe("skills in tern chat", () => {
  terminalIt("the banner names them and /skills lists them with file and status", async () => {
    const { home, work } = workspace();
    const server = await startScriptedModel([]);
    const tmux = startChat([], scriptedModelEnv(server, { TERN_HOME: home }), work);
    await tmux.waitFor(/skills \(3\): make, review, notes/);
    tmux.type("/skills", "Enter");
    const screen = await tmux.waitFor(/notes\s+Keeps notes\.\s+user · \S*notes\/SKILL\.md · instructions/);
    expect(screen).toMatch(/make\s+Builds the project with its script\./);
  });
});

/** `tern run "build it"` in a fresh workspace() against a model answering `replies`. */
async function buildIt(replies: Parameters<typeof startScriptedModel>[0]) {
  const { home, work } = workspace();
  const server = await startScriptedModel(replies);
  const run = await runTern(["run", "build it"], {
    env: scriptedModelEnv(server, { TERN_HOME: home }),
    cwd: work,
  });
  expect(run.code, run.stderr).toBe(0);
  return { server, work };
}

describe("a project skill's allowed-tools", () => {
  it("are not honoured until tern hooks approve, said once per run; then they are; an edit asks again", async () => {
    const home = tempDir();
    const work = tempDir();
    const skills = join(work, ".tern", "skills");
    skill(
      skills,
      "toucher",
      "description: Touches files.\nallowed-tools: Bash(touch:*)\n",
      "Touch what is asked.",
    );
    const replies = () => [
      toolReply([{ name: "bash", args: { command: "touch made.txt" } }]),
      textReply("Done."),
    ];
    let server = await startScriptedModel(replies());
    let env = scriptedModelEnv(server, { TERN_HOME: home });
    const before = await runTern(["run", "--sandbox", "off", "touch it"], { env, cwd: work });
    expect(before.code, before.stderr).toBe(0);
    const notes = before.stderr.match(
      /skill "toucher" .*allowed-tools \(bash\(touch:\*\)\) are not in effect until approved .*tern hooks approve.*/g,
    );
    expect(notes).toHaveLength(1);
    expect(existsSync(join(work, "made.txt"))).toBe(false);
    const listed = await runTern(["skills", "ls", "-C", work], { env });
    expect(listed.stdout).toContain("allowed-tools await approval (bash(touch:*)): tern hooks approve");

    const approved = await runTern(["hooks", "approve", "-C", work], { env });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain("approved the allowed-tools of the project's skills");
    expect(approved.stdout).toContain("toucher");
    server = await startScriptedModel(replies());
    env = scriptedModelEnv(server, { TERN_HOME: home });
    const after = await runTern(["run", "--sandbox", "off", "touch it"], { env, cwd: work });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).not.toContain("not in effect until approved");
    expect(existsSync(join(work, "made.txt"))).toBe(true);

    // The skill now asks for more: the old approval does not cover it.
    skill(
      skills,
      "toucher",
      "description: Touches files.\nallowed-tools: Bash(touch:*) Bash(rm:*)\n",
      "Touch.",
    );
    const edited = await runTern(["skills", "ls", "--json", "-C", work], { env });
    expect(JSON.parse(edited.stdout).skills[0].status).toBe("allowed-tools await approval");
  });

  it("a user skill's allowed-tools count like the user's own rules", async () => {
    const home = tempDir();
    const work = tempDir();
    skill(
      join(home, "skills"),
      "toucher",
      "description: Touches files.\nallowed-tools: Bash(touch:*)\n",
      "Touch.",
    );
    const server = await startScriptedModel([
      toolReply([{ name: "bash", args: { command: "touch made.txt" } }]),
      textReply("Done."),
    ]);
    const run = await runTern(["run", "--sandbox", "off", "touch it"], {
      env: scriptedModelEnv(server, { TERN_HOME: home }),
      cwd: work,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(work, "made.txt"))).toBe(true);
  });
});
