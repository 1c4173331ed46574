// `tern hooks [approve]`: the command hooks of the settings files (the user's config.json and the
// project's .tern/config.json) and whether the project's are approved; `approve` says yes to the
// project's current hooks and `allow` rules, once, for this project (an edit needs a new yes).
import { resolve } from "node:path";
import { DEFAULT_COMMAND_HOOK_TIMEOUT_MS, workspaceRoot } from "@tern/tools";
import { parseCommandArgs, stringOption } from "../cli/args.js";
import { type ExitCode, UsageError } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { loadHome } from "../config/home.js";
import { approveProjectHooks, type HookSetting, loadHookSettings } from "../config/hooks.js";
import { approveProjectRules, loadProjectRules } from "../config/project-rules.js";
import { checkDirectory } from "../config/settings.js";
import { approveProjectSkills } from "../config/skills.js";
import { helpFor, wantsHelp } from "../help.js";
import { colorEnabled, createStyle } from "../render/style.js";

export async function hooksCommand(argv: string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("hooks", argv, { cwd: { type: "string", short: "C" } }, 1);
  if (wantsHelp(values, io, helpFor("hooks"))) return 0;
  const action = positionals[0];
  if (action !== undefined && action !== "approve")
    throw new UsageError(`unknown hooks action "${action}": use tern hooks, or tern hooks approve`);
  const cwdFlag = stringOption(values, "cwd");
  const cwd = resolve(io.cwd, cwdFlag ?? ".");
  if (cwdFlag !== undefined) checkDirectory(cwd, "--cwd");
  const home = loadHome(io);
  const style = createStyle(colorEnabled(io.stdout, io.env));
  const warn = (message: string) => io.stderr.write(`${style.yellow("tern: warning:")} ${message}\n`);
  for (const warning of home.config.warnings) warn(warning);
  const root = workspaceRoot(cwd);
  const settings = await loadHookSettings(home.home, home.config.config.hooks, home.config.path, root);
  const project = settings.project;

  if (action === "approve") {
    const rules = await approveProjectRules(cwd, home.home);
    if (rules.length > 0)
      io.stdout.write(`approved the project's allow rules for ${root}: ${rules.join(", ")}\n`);
    const skills = await approveProjectSkills(cwd, home.home);
    if (skills.length > 0)
      io.stdout.write(
        `approved the allowed-tools of the project's skills for ${root}: ${skills.join(", ")}\n`,
      );
    if (!project || project.hooks.length === 0) {
      if (rules.length === 0 && skills.length === 0)
        io.stdout.write(
          `no project hooks or allow rules to approve in ${resolve(root, ".tern", "config.json")}\n`,
        );
      return 0;
    }
    await approveProjectHooks(home.home, root, project);
    io.stdout.write(`approved ${project.hooks.length} project hook(s) of ${project.file} for ${root}\n`);
    return 0;
  }
  for (const warning of settings.warnings) warn(warning);
  const print = (line: string) => io.stdout.write(`${line}\n`);
  print(style.bold(`user hooks (${home.config.path})`));
  listHooks(settings.user, print);
  if (project) {
    const state = project.approved
      ? style.green("approved")
      : style.yellow("not approved: tern hooks approve");
    print(style.bold(`project hooks (${project.file}) · ${state}`));
    listHooks(project.hooks, print);
  } else print(style.dim(`no project hooks (${resolve(root, ".tern", "config.json")})`));
  const rules = await loadProjectRules(cwd, home.home);
  if (rules.allow.length > 0)
    print(`project allow rules · ${style.green("approved")}: ${rules.allow.join(", ")}`);
  if (rules.unapproved.length > 0)
    print(
      `project allow rules · ${style.yellow("not approved: tern hooks approve")}: ${rules.unapproved.join(", ")}`,
    );
  return 0;
}

function listHooks(hooks: readonly HookSetting[], print: (line: string) => void): void {
  if (hooks.length === 0) print("  (none)");
  for (const { spec } of hooks) {
    const matcher = spec.matcher === undefined ? "*" : [spec.matcher].flat().join("|");
    const seconds = (spec.timeoutMs ?? DEFAULT_COMMAND_HOOK_TIMEOUT_MS) / 1000;
    print(`  ${spec.event.padEnd(18)} ${matcher.padEnd(12)} ${spec.command}  (timeout ${seconds} s)`);
  }
}
