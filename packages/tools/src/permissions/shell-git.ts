// What a git command line runs besides git: `-c`/`--config-env` settings that name commands
// (aliases with `!`, pagers, ssh commands, filters…), commands that are not git's own (aliases and
// git-NAME programs), and the commands git's own subcommands are given (`rebase -x`,
// `submodule foreach`, `bisect run`, `--upload-pack`…). Which settings run code is the executor
// table's business (shell-executors.ts): it is passed in as `setting`.

import { GIT_COMMANDS, GIT_GLOBAL_WITH_VALUE } from "./command-pattern.js";
import type { StaticWord } from "./shell-syntax.js";
import { optionValues, type Unwrapped } from "./shell-wrappers.js";

/** What a `-c key=value` setting runs; the value is undefined when only the run knows it. */
export type GitSetting = (key: string, value: StaticWord) => Unwrapped | undefined;

/** git options before the command that take no value (`--exec-path` alone prints the path). */
const FLAGS =
  /^(-p|-P|--paginate|--no-pager|--bare|--no-replace-objects|--no-lazy-fetch|--literal-pathspecs|--glob-pathspecs|--noglob-pathspecs|--icase-pathspecs|--no-optional-locks|--no-advice|-v|--version|-h|--help|--html-path|--man-path|--info-path|--exec-path)$/;

/** Options of git's own commands whose value is a shell command: [command, short letter, long name]. */
const COMMAND_OPTIONS: [string, string | undefined, string][] = [
  ["rebase", "x", "exec"],
  ["difftool", "x", "extcmd"],
  ["clone", "u", "upload-pack"],
  ["fetch", undefined, "upload-pack"],
  ["pull", undefined, "upload-pack"],
  ["ls-remote", undefined, "upload-pack"],
  ["archive", undefined, "exec"],
  ["push", undefined, "receive-pack"],
  ["push", undefined, "exec"],
];

class GitReading {
  readonly scripts: string[] = [];
  readonly inners: StaticWord[][] = [];
  hidden: string | undefined;
  readonly aliases = new Set<string>();

  constructor(private readonly setting: GitSetting) {}

  hide(why: string): void {
    this.hidden ??= why;
  }

  add(found: Unwrapped | undefined): void {
    if (!found) return;
    this.scripts.push(...(found.scripts ?? []));
    if (found.hidden) this.hide(found.hidden);
    if (found.unresolved) this.hide(found.unresolved);
  }

  /** `key=value` from `-c`, or `key=VARIABLE` from `--config-env` (the value is then unknown). */
  configure(text: StaticWord, fromEnvironment: boolean): void {
    if (text === undefined) {
      this.hide("git is given a setting only known when it runs");
      return;
    }
    const eq = text.indexOf("=");
    const key = (eq === -1 ? text : text.slice(0, eq)).toLowerCase();
    const value = fromEnvironment ? undefined : eq === -1 ? "true" : text.slice(eq + 1);
    if (key.startsWith("alias.")) this.aliases.add(key.slice("alias.".length));
    this.add(this.setting(key, value));
  }

  script(command: StaticWord, what: string): void {
    if (command === undefined) this.hide(`${what} runs a command only known when it runs`);
    else this.scripts.push(command);
  }
}

export function git(argv: readonly StaticWord[], setting: GitSetting): Unwrapped {
  const reading = new GitReading(setting);
  let i = 1;
  for (; i < argv.length; i++) {
    const word = argv[i];
    if (word === undefined) {
      reading.hide("git is given an option only known when it runs");
      continue;
    }
    if (!word.startsWith("-")) break;
    if (FLAGS.test(word)) continue;
    const eq = word.indexOf("=");
    const name = word.startsWith("--") && eq !== -1 ? word.slice(0, eq) : word;
    if (!GIT_GLOBAL_WITH_VALUE.has(name)) {
      reading.hide(`git's option ${word} is not known`);
      continue;
    }
    const value = name === word ? argv[++i] : word.slice(eq + 1);
    if (name === "-c") reading.configure(value, false);
    else if (name === "--config-env") reading.configure(value, true);
    else if (name === "--exec-path")
      reading.hide("--exec-path makes git run its commands from another directory");
  }
  if (i < argv.length) subcommand(reading, argv[i], argv.slice(i + 1));
  const result: Unwrapped = { transparent: false };
  if (reading.scripts.length > 0) result.scripts = reading.scripts;
  if (reading.inners.length > 0) result.inners = reading.inners;
  if (reading.hidden) result.hidden = reading.hidden;
  return result;
}

function subcommand(reading: GitReading, name: StaticWord, args: readonly StaticWord[]): void {
  if (name === undefined) {
    reading.hide("the git command is only known when it runs");
    return;
  }
  // An alias given on this line was judged with its -c setting.
  if (reading.aliases.has(name.toLowerCase())) return;
  if (!GIT_COMMANDS.has(name)) {
    reading.hide(
      `git ${name} is not one of git's own commands: an alias or a git-${name} program, which the rules cannot see`,
    );
    return;
  }
  if (name === "submodule") {
    const at = args.indexOf("foreach");
    if (at !== -1) {
      const rest = args.slice(at + 1).filter((w) => w === undefined || !/^(--recursive|-q|--quiet)$/.test(w));
      reading.script(rest.some((w) => w === undefined) ? undefined : rest.join(" "), "git submodule foreach");
    }
  }
  if (name === "bisect" && args[0] === "run") reading.inners.push(args.slice(1));
  if (name === "clone")
    for (const value of optionValues(args, "c", "config")) reading.configure(value, false);
  if (name === "config") configWrite(reading, args);
  if (name === "grep")
    for (const word of args)
      if (word !== undefined && /^(-O|--open-files-in-pager=)./.test(word))
        reading.script(word.replace(/^(-O|--open-files-in-pager=)/, ""), "git grep -O");
  if (name === "filter-branch")
    args.forEach((word, k) => {
      if (word !== undefined && /^--[a-z-]+-filter$/.test(word)) reading.script(args[k + 1], `git ${word}`);
    });
  for (const [command, short, long] of COMMAND_OPTIONS)
    if (name === command)
      for (const value of optionValues(args, short, long)) reading.script(value, `git ${command} --${long}`);
}

/** `git config [set] KEY VALUE` writes a setting later git commands use: judged like `-c KEY=VALUE`. */
function configWrite(reading: GitReading, args: readonly StaticWord[]): void {
  const operands: StaticWord[] = [];
  for (let k = 0; k < args.length; k++) {
    const word = args[k];
    if (word !== undefined && /^(-f|--file|--blob|--type|--default|--comment|--value)$/.test(word)) k++;
    else if (word === undefined || !word.startsWith("-")) operands.push(word);
  }
  if (operands[0] === "set") operands.shift();
  const [key, value] = operands;
  if (key === undefined) {
    if (operands.length > 0)
      reading.hide("git config writes a setting whose name is only known when it runs");
    return;
  }
  if (operands.length < 2) return;
  reading.configure(value === undefined ? undefined : `${key}=${value}`, false);
}
