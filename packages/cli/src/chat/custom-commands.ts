// Custom slash commands: `.tern/commands/NAME.md` in the workspace and `$TERN_HOME/commands/NAME.md`
// (the workspace's win on a name clash) become `/NAME`. The file is a prompt template: `$ARGUMENTS`
// is replaced by everything after the command, `$1`…`$9` by its words. Its first line, without
// leading `#`, is the description `/help` shows. Built-in commands cannot be replaced.

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** Larger files are skipped with a warning: a command is a prompt, not a document. */
export const MAX_COMMAND_FILE_BYTES = 64 * 1024;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

export interface CustomCommand {
  name: string;
  description: string;
  template: string;
  file: string;
}

export function loadCustomCommands(
  cwd: string,
  home: string,
  builtIn: ReadonlySet<string>,
): { commands: Map<string, CustomCommand>; warnings: string[] } {
  const commands = new Map<string, CustomCommand>();
  const warnings: string[] = [];
  // Home first, so the workspace's commands replace them.
  for (const dir of [path.join(home, "commands"), path.join(cwd, ".tern", "commands")]) {
    let names: string[];
    try {
      names = readdirSync(dir).filter((name) => name.endsWith(".md"));
    } catch {
      continue;
    }
    for (const fileName of names.sort()) {
      const name = fileName.slice(0, -3);
      const file = path.join(dir, fileName);
      if (!NAME.test(name)) {
        warnings.push(`${file}: a command name uses letters, digits, - and _ only; skipped`);
        continue;
      }
      if (builtIn.has(`/${name}`)) {
        warnings.push(`${file}: /${name} is a built-in command; skipped`);
        continue;
      }
      let template: string;
      try {
        const bytes = readFileSync(file);
        if (bytes.length > MAX_COMMAND_FILE_BYTES) {
          warnings.push(`${file}: larger than ${MAX_COMMAND_FILE_BYTES / 1024} kB; skipped`);
          continue;
        }
        template = bytes.toString("utf8");
      } catch (error) {
        warnings.push(`${file}: ${(error as Error).message}`);
        continue;
      }
      const first = template.split("\n").find((line) => line.trim() !== "") ?? "";
      commands.set(name, { name, template, file, description: first.replace(/^#+\s*/, "").trim() });
    }
  }
  return { commands, warnings };
}

/** The prompt a command sends: its template with the arguments put in. */
export function expandCommand(command: CustomCommand, args: string): string {
  const words = args.split(/\s+/).filter(Boolean);
  return command.template
    .replace(/\$ARGUMENTS/g, args)
    .replace(/\$([1-9])/g, (_, index: string) => words[Number(index) - 1] ?? "")
    .trim();
}
