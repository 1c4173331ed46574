// `tern skills [ls]`: the Agent Skills a run in this directory would load (name, description,
// source path, and what its allowed-tools do: nothing, in effect, or awaiting approval), with the
// warnings for the skills it skipped; `--json` for scripts.
import { resolve } from "node:path";
import { parseCommandArgs, stringOption } from "../cli/args.js";
import { type ExitCode, UsageError } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { loadHome } from "../config/home.js";
import { checkDirectory } from "../config/settings.js";
import { loadSkills } from "../config/skills.js";
import { helpFor, wantsHelp } from "../help.js";
import { skillLines, skillRows } from "../render/skills.js";
import { colorEnabled, createStyle } from "../render/style.js";

export async function skillsCommand(argv: string[], io: Io): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs(
    "skills",
    argv,
    { cwd: { type: "string", short: "C" }, json: { type: "boolean" } },
    1,
  );
  if (wantsHelp(values, io, helpFor("skills"))) return 0;
  const action = positionals[0] ?? "ls";
  if (action !== "ls") throw new UsageError(`unknown skills action "${action}": use tern skills ls`);
  const cwdFlag = stringOption(values, "cwd");
  const cwd = resolve(io.cwd, cwdFlag ?? ".");
  if (cwdFlag !== undefined) checkDirectory(cwd, "--cwd");
  const home = loadHome(io);
  const style = createStyle(colorEnabled(io.stdout, io.env));
  const loaded = await loadSkills(cwd, home.home);
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ skills: skillRows(loaded), warnings: loaded.warnings }, null, 2)}\n`);
    return 0;
  }
  for (const warning of [...home.config.warnings, ...loaded.warnings])
    io.stderr.write(`${style.yellow("tern: warning:")} ${warning}\n`);
  for (const line of skillLines(loaded, style)) io.stdout.write(`${line}\n`);
  return 0;
}
