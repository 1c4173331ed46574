// Agent Skills through the library: SKILL.md parsing against the specification's limits,
// discovery in precedence order with a warning naming both files of a duplicate, every bad input
// (malformed YAML, missing fields, bad names, a huge file, a symlink out of the project, binary)
// a warning naming the file and never a throw, the capped system-prompt list, and the skill tool.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { discoverSkills, formatSkillsSection, type Skill, skillTool } from "../src/index.js";
import { MAX_SKILL_DESCRIPTION_CHARS, parseSkillFile } from "../src/skills/skill-file.js";
import { callTool, files, symlink, tempDir } from "./support.js";

const skillText = (name: string, description: string, extra = "", body = "Do the thing.") =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}\n`;

describe("parseSkillFile", () => {
  it("reads name, description, allowed-tools (Claude Code's names become tern's) and the body", () => {
    const parsed = parseSkillFile(
      skillText(
        "pdf-tools",
        "Fill PDF forms.",
        "allowed-tools: Bash(git status:*) Read, Grep\n",
        "# PDF\nSteps.",
      ),
      "pdf-tools",
    );
    expect(parsed).toEqual({
      ok: true,
      skill: {
        name: "pdf-tools",
        description: "Fill PDF forms.",
        allowedTools: ["bash(git status:*)", "read", "grep"],
        body: "# PDF\nSteps.",
        truncated: false,
      },
    });
    const list = parseSkillFile(skillText("a", "d", "allowed-tools:\n  - bash(ls:*)\n  - Edit\n"), "a");
    expect(list.ok && list.skill.allowedTools).toEqual(["bash(ls:*)", "edit"]);
  });

  it.each([
    ["no front matter", "just text", "a", /no front matter/],
    ["an unclosed block", "---\nname: a\n", "a", /no closing ---/],
    ["malformed YAML", "---\nname: [a\n---\n", "a", /not valid YAML/],
    ["a list, not a mapping", "---\n- a\n---\n", "a", /mapping/],
    ["no name", "---\ndescription: d\n---\n", "a", /name is missing/],
    ["no description", "---\nname: a\n---\n", "a", /description is missing/],
    ["upper case", skillText("Pdf", "d"), "Pdf", /lowercase/],
    ["a leading hyphen", skillText("-pdf", "d"), "-pdf", /lowercase/],
    ["a double hyphen", skillText("pdf--x", "d"), "pdf--x", /single hyphens/],
    ["an underscore", skillText("pdf_x", "d"), "pdf_x", /lowercase/],
    ["65 characters", skillText("a".repeat(65), "d"), "a".repeat(65), /at most 64/],
    ["a name that is not its folder's", skillText("pdf", "d"), "other", /must match its folder "other"/],
    ["a long description", skillText("a", "x".repeat(MAX_SKILL_DESCRIPTION_CHARS + 1)), "a", /at most 1024/],
    ["allowed-tools of numbers", skillText("a", "d", "allowed-tools: [1]\n"), "a", /allowed-tools must/],
  ])("refuses %s with a reason", (_case, text, folder, reason) => {
    const parsed = parseSkillFile(text, folder);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(reason);
  });

  it("accepts the limits exactly", () => {
    const name = `${"a".repeat(63)}b`;
    expect(parseSkillFile(skillText(name, "x".repeat(MAX_SKILL_DESCRIPTION_CHARS)), name).ok).toBe(true);
  });
});

describe("discoverSkills", () => {
  it("takes the first directory's skill on a duplicate name and warns naming both files", async () => {
    const root = await tempDir();
    await files(root, {
      "project/shared/SKILL.md": skillText("shared", "from the project"),
      "project/only-here/SKILL.md": skillText("only-here", "project only"),
      "user/shared/SKILL.md": skillText("shared", "from the user"),
      "user/mine/SKILL.md": skillText("mine", "the user's own"),
      "user/mine/scripts/run.sh": "echo hi\n",
      "user/not-a-skill.txt": "beside the skills",
      "user/empty-folder/README.md": "no SKILL.md",
    });
    const loaded = discoverSkills([
      { dir: path.join(root, "project"), scope: "project", tree: root },
      { dir: path.join(root, "absent"), scope: "project", tree: root },
      { dir: path.join(root, "user"), scope: "user" },
    ]);
    expect(loaded.skills.map((skill) => [skill.name, skill.scope, skill.description])).toEqual([
      ["only-here", "project", "project only"],
      ["shared", "project", "from the project"],
      ["mine", "user", "the user's own"],
    ]);
    expect(loaded.warnings).toEqual([
      `skill "shared": ${path.join(root, "user/shared/SKILL.md")} is ignored; ${path.join(root, "project/shared/SKILL.md")} has the same name and wins`,
    ]);
  });

  it("skips every bad skill with a warning naming its file, and cuts a huge one with a note", async () => {
    const root = await tempDir();
    const outside = await tempDir();
    await files(outside, { "stolen/SKILL.md": skillText("stolen", "outside the project") });
    await files(root, {
      "skills/broken/SKILL.md": "---\nname: [broken\n---\n",
      "skills/nameless/SKILL.md": "---\ndescription: d\n---\nbody",
      "skills/Bad-Name/SKILL.md": skillText("Bad-Name", "d"),
      "skills/binary/SKILL.md": Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01]),
      "skills/huge/SKILL.md": skillText("huge", "big", "", "x".repeat(5000)),
      "skills/good/SKILL.md": skillText("good", "fine"),
    });
    await mkdir(path.join(root, "skills", "dir-as-file"));
    await mkdir(path.join(root, "skills", "dir-as-file", "SKILL.md"));
    await symlink(path.join(outside, "stolen"), path.join(root, "skills", "stolen"));
    const loaded = discoverSkills([{ dir: path.join(root, "skills"), scope: "project", tree: root }], {
      maxBytes: 1000,
    });
    expect(loaded.skills.map((skill) => skill.name)).toEqual(["good", "huge"]);
    const huge = loaded.skills.find((skill) => skill.name === "huge")!;
    expect(huge.truncated).toBe(true);
    expect(huge.body).toMatch(/\[tern: this SKILL.md has \d+ bytes; only the first 1000 were loaded\]$/);
    const at = (folder: string) => path.join(root, "skills", folder, "SKILL.md");
    expect(loaded.warnings).toEqual([
      expect.stringMatching(new RegExp(`^skill ${at("Bad-Name")}: name "Bad-Name" must .*; skipped$`)),
      `skill ${at("binary")}: binary, not text; skipped`,
      expect.stringMatching(
        new RegExp(`^skill ${at("broken")}: the front matter is not valid YAML.*; skipped$`),
      ),
      `skill ${at("dir-as-file")}: not a regular file; skipped`,
      expect.stringMatching(new RegExp(`^skill ${at("huge")}: \\d+ bytes; only the first 1000 loaded$`)),
      `skill ${at("nameless")}: name is missing; skipped`,
      `skill ${at("stolen")}: it leads outside ${root} (a symlink); skipped`,
    ]);
  });

  it("a user directory may link anywhere; an unreadable skill directory is a warning", async () => {
    const root = await tempDir();
    const elsewhere = await tempDir();
    await files(elsewhere, { "linked/SKILL.md": skillText("linked", "kept elsewhere") });
    await mkdir(path.join(root, "user"));
    await symlink(path.join(elsewhere, "linked"), path.join(root, "user", "linked"));
    await writeFile(path.join(root, "not-a-dir"), "file");
    const loaded = discoverSkills([
      { dir: path.join(root, "user"), scope: "user" },
      { dir: path.join(root, "not-a-dir"), scope: "project", tree: root },
    ]);
    expect(loaded.skills.map((skill) => skill.name)).toEqual(["linked"]);
    expect(loaded.warnings).toEqual([]);
  });
});

function skill(name: string, description = `does ${name}`): Skill {
  return {
    name,
    description,
    allowedTools: [],
    body: `body of ${name}`,
    truncated: false,
    path: `/s/${name}/SKILL.md`,
    dir: `/s/${name}`,
    scope: "user",
  };
}

describe("formatSkillsSection", () => {
  it("lists names and descriptions only, never a body", () => {
    const text = formatSkillsSection([skill("a"), skill("b", "two\n  lines")], { toolName: "skill" });
    expect(text).toContain("- a: does a\n- b: two lines");
    expect(text).not.toContain("body of");
    expect(text).not.toContain("more skill");
    expect(formatSkillsSection([], { toolName: "skill" })).toBe("");
  });

  it("caps the entries and the characters and counts what it left out", () => {
    const many = Array.from({ length: 7 }, (_, i) => skill(`s${i}`));
    expect(formatSkillsSection(many, { toolName: "skill", maxListed: 5 })).toMatch(
      /- s4: does s4\n… 2 more skills not listed; use the skill tool to list them$/,
    );
    const long = [skill("a", "x".repeat(60)), skill("b", "y".repeat(60))];
    expect(formatSkillsSection(long, { toolName: "skill", maxChars: 100 })).toMatch(
      /- a: x+\n… 1 more skill not listed; use the skill tool to list them$/,
    );
  });
});

describe("the skill tool", () => {
  it("returns the body and the folder's files; lists every skill without a name; names unknown ones", async () => {
    const root = await tempDir();
    await files(root, {
      ".tern/skills/deploy/SKILL.md": skillText("deploy", "Deploys the app.", "", "Run scripts/go.sh."),
      ".tern/skills/deploy/scripts/go.sh": "echo go\n",
      ".tern/skills/deploy/reference.md": "more",
      ".tern/skills/deploy/node_modules/x/index.js": "",
    });
    const { skills } = discoverSkills([
      { dir: path.join(root, ".tern/skills"), scope: "project", tree: root },
    ]);
    const tools = [
      skillTool([...skills, skill("other")], {
        cwd: root,
        note: (s) => (s.name === "deploy" ? "a note" : undefined),
      }),
    ];
    const used = await callTool(tools, "skill", { name: "deploy" });
    expect(used.isError).toBe(false);
    expect(used.text).toBe(
      [
        '<skill name="deploy" path=".tern/skills/deploy/SKILL.md">',
        "Run scripts/go.sh.",
        "</skill>",
        "",
        "Files of this skill (read them with read, run scripts with bash, only when the instructions call for them):",
        "- .tern/skills/deploy/reference.md",
        "- .tern/skills/deploy/scripts/go.sh",
        "",
        "a note",
      ].join("\n"),
    );
    const listed = await callTool(tools, "skill", {});
    expect(listed.text).toBe("Skills:\n- deploy: Deploys the app.\n- other: does other");
    const unknown = await callTool(tools, "skill", { name: "nope" });
    expect(unknown).toMatchObject({
      isError: true,
      text: 'There is no skill "nope". Skills: deploy, other.',
    });
    const outside = await callTool(tools, "skill", { name: "other" });
    expect(outside.text).toContain('path="/s/other/SKILL.md"');
    expect(outside.text).toContain("This skill has no other files.");
  });

  it("lists at most maxFiles of a folder's files and says there are more", async () => {
    const root = await tempDir();
    const tree: Record<string, string> = { "big/SKILL.md": skillText("big", "Many files.") };
    for (let i = 0; i < 5; i++) tree[`big/refs/r${i}.md`] = "ref";
    await files(root, tree);
    const { skills } = discoverSkills([{ dir: root, scope: "user" }]);
    const result = await callTool([skillTool(skills, { cwd: root, maxFiles: 3 })], "skill", { name: "big" });
    expect(result.text).toMatch(/- big\/refs\/r2\.md\n… and more \(only the first 3 are listed\)$/);
    expect((result.details as { files: string[] }).files).toHaveLength(3);
  });
});
