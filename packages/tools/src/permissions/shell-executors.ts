// The one table of every way a command line makes the shell or a program run code from a string, a
// file or the environment: programs (wrappers, shells, `eval`, `xargs`, `find -exec`, git…),
// variables (`BASH_ENV`, `PAGER`, `PS4`…) and git settings (`alias.*`, `core.pager`…). Each entry
// says how it is recognised and what the rules do with the code it runs: "judged" (extracted and
// checked like the line itself), "asked" (no rule can see it: a bash deny rule asks), "judged or
// asked" (judged when it is on the line, asked when it is in a file or only known at run time) or
// "judged and asked" (judged, and asked too: the program decides whether and how it runs it).
// Every example is a line the tests run under `bash(rm:*)`, with the answer it must get.

import { git } from "./shell-git.js";
import type { StaticWord } from "./shell-syntax.js";
import {
  alias,
  busybox,
  command,
  commandOptions,
  completion,
  env,
  evalCommand,
  find,
  flock,
  hash,
  hides,
  mapfile,
  parallel,
  pee,
  prefixWrapper,
  programName,
  runner,
  SHELLS,
  script,
  shell,
  source,
  ssh,
  sudo,
  suLike,
  timeCommand,
  timeout,
  trap,
  type Unwrapped,
  watch,
  xargs,
} from "./shell-wrappers.js";

export type Code = "judged" | "asked" | "judged or asked" | "judged and asked";
export type Outcome = "deny" | "ask";

interface Entry {
  /** What runs code, in a few words. */
  what: string;
  code: Code;
  /** Lines run under `bash(rm:*)` (mode bypass) and the answer each must get. */
  examples: Record<string, Outcome>;
}

export interface ProgramExecutor extends Entry {
  kind: "program";
  names: readonly string[];
  read: (argv: readonly StaticWord[]) => Unwrapped;
}

/** A variable, assigned anywhere on the line: before a command, alone, by `export`/`declare`, `env`, `sudo`, `read`. */
export interface VariableExecutor extends Entry {
  kind: "variable";
  name: RegExp;
  read: (value: StaticWord, name: string) => Unwrapped;
}

/** A git setting given on the line (`-c key=value`, `--config-env`, `clone -c`); keys are lower case. */
export interface GitSettingExecutor extends Entry {
  kind: "git-setting";
  key: RegExp;
  read: (value: StaticWord, key: string) => Unwrapped;
}

export type Executor = ProgramExecutor | VariableExecutor | GitSettingExecutor;

function program(
  names: readonly string[],
  what: string,
  code: Code,
  read: ProgramExecutor["read"],
  examples: Entry["examples"],
): ProgramExecutor {
  return { kind: "program", names, what, code, read, examples };
}

const judge = (script: string): Unwrapped => ({ transparent: false, scripts: [script] });
const asked = (why: string): Unwrapped => ({ transparent: false, hidden: why });

/** The value is a shell command a program may run: judged, and asked (the program decides). */
function commandValue(what: string) {
  return (value: StaticWord, name: string): Unwrapped =>
    value === undefined
      ? asked(`${name} is set to a command only known when it runs`)
      : { ...judge(value), hidden: `${name} makes ${what} run a command the rules cannot follow` };
}

/** Prompts expand `$(…)` when the shell shows them (PS4 with xtrace before every command). */
function promptValue(value: StaticWord, name: string): Unwrapped {
  if (value === undefined)
    return { transparent: false, unresolved: `${name} is set to text that is not known` };
  return judge(`: "${value.replace(/(["\\])/g, "\\$1")}"`);
}

const runnerNames = [
  "chrt",
  "taskset",
  "chroot",
  "setarch",
  "unshare",
  "nsenter",
  "pkexec",
  "strace",
  "ltrace",
  "valgrind",
  "fakeroot",
  "numactl",
  "prlimit",
  "systemd-run",
  "nocache",
  "unbuffer",
  "catchsegv",
  "firejail",
  "torsocks",
  "proxychains",
  "proxychains4",
  "xvfb-run",
  "dbus-run-session",
];
/** Runners whose command follows one operand (`chrt 5 CMD`); the others run what follows at once. */
const ONE_OPERAND = new Set(["chrt", "taskset", "chroot", "setarch"]);

export const EXECUTORS: readonly Executor[] = [
  program(
    [...SHELLS],
    "a shell: `-c STRING`, a heredoc or here-string on its input; a script file, `--rcfile`",
    "judged or asked",
    shell,
    {
      "bash -c 'rm x'": "deny",
      "sh <<< 'rm x'": "deny",
      "echo 'rm x' > f.sh; bash f.sh": "ask",
      "echo 'rm x' > f.sh; bash --rcfile f.sh -i < /dev/null": "ask",
    },
  ),
  program(
    ["source", "."],
    "`source FILE`, `. FILE`: a file's commands (standard input and `<(…)` are judged)",
    "judged or asked",
    source,
    { "echo 'rm x' > f.sh; . ./f.sh": "ask", "source /dev/stdin <<< 'rm x'": "deny" },
  ),
  program(["eval"], "`eval STRING`", "judged", evalCommand, { "eval 'rm x'": "deny" }),
  program(["alias"], "alias values, run where the name is used", "judged", alias, {
    "alias r=rm\nr x": "deny",
  }),
  program(["trap"], "trap handlers", "judged", trap, { "trap 'rm x' EXIT": "deny" }),
  program(["mapfile", "readarray"], "`mapfile -C CALLBACK`", "judged", mapfile, {
    "mapfile -C 'rm x' -c 1 a < /dev/null": "deny",
  }),
  program(["compgen", "complete"], "`compgen -C CMD`, `complete -C CMD`", "judged", completion, {
    "compgen -C 'rm x' w": "deny",
  }),
  program(
    ["fc"],
    "`fc`: commands from the shell's history, or an editor",
    "asked",
    hides("fc runs commands from the shell's history or an editor"),
    { "set -o history; history -s 'rm x'; fc -s rm": "ask" },
  ),
  program(
    ["enable"],
    "`enable -f LIB`: a builtin loaded from a shared library",
    "asked",
    hides("enable -f loads a builtin from a library", (argv) =>
      argv.some((w) => w === undefined || /^-\w*f/.test(w)),
    ),
    { "enable -f ./lib.so x": "ask" },
  ),
  program(["hash"], "`hash -p PROGRAM NAME`: a name that runs another program", "asked", hash, {
    "hash -p /bin/rm ls; ls x": "ask",
  }),
  program(["sudo"], "sudo (its options and `NAME=value` words)", "judged", sudo, {
    "sudo rm x": "deny",
    "sudo -E -u root -- rm x": "deny",
  }),
  program(["doas"], "doas", "judged", prefixWrapper("doas", { withArg: "uC", flags: "Lns" }, false), {
    "doas rm x": "deny",
  }),
  program(
    ["env"],
    "env (`-i`, `-u`, `-C`, `-S STRING`, any word with `=` before the command)",
    "judged",
    env,
    { "env rm x": "deny", "env -S 'rm x'": "deny", "env 'a b=1' rm x": "deny" },
  ),
  ...(
    [
      ["nice", { withArg: "n", longWithArg: ["adjustment"], numeric: true }, "nice -n 5 rm x"],
      [
        "ionice",
        {
          withArg: "cnpPu",
          flags: "t",
          longWithArg: ["class", "classdata", "pid", "pgid", "uid"],
          longFlags: ["ignore"],
        },
        "ionice -c3 rm x",
      ],
      ["stdbuf", { withArg: "ioe", longWithArg: ["input", "output", "error"] }, "stdbuf -o0 rm x"],
      ["nohup", {}, "nohup rm x"],
      ["builtin", {}, "builtin eval 'rm x'"],
      ["exec", { withArg: "a", flags: "cl" }, "exec -a foo rm x"],
      ["setsid", { flags: "cfw", longFlags: ["ctty", "fork", "wait"] }, "setsid -w rm x"],
      ["chronic", { flags: "ev" }, "chronic rm x"],
      ["ifne", { flags: "n" }, "echo a | ifne rm x"],
    ] as const
  ).map(([name, spec, example]) =>
    program([name], `${name}: the command after its options`, "judged", prefixWrapper(name, spec), {
      [example]: "deny",
    }),
  ),
  program(["timeout"], "timeout: the command after the duration", "judged", timeout, {
    "timeout 5 rm x": "deny",
    "timeout -s KILL 5 rm x": "deny",
  }),
  program(["time"], "time (the keyword and the program, `-p`, `-o FILE`)", "judged", timeCommand, {
    "time rm x": "deny",
    "time -p -- rm x": "deny",
  }),
  // mvdan/sh reads `time -p -- rm x` as running a command named "--"; bash runs rm.
  program(
    ["--"],
    "`--` after the `time` keyword",
    "judged",
    (argv) => (argv.length > 1 ? { transparent: true, inners: [argv.slice(1)] } : { transparent: true }),
    { "time -p -- rm x": "deny" },
  ),
  program(["command"], "`command CMD` (not `command -v`)", "judged", command, { "command rm x": "deny" }),
  program(["xargs"], "xargs: its command, with the arguments it reads as unknown words", "judged", xargs, {
    "echo x | xargs rm": "deny",
    "echo x | xargs sh -c 'rm x'": "deny",
  }),
  program(["find"], "`find -exec/-execdir/-ok/-okdir CMD ;` (`{}` is an unknown word)", "judged", find, {
    "find . -name x -exec rm {} \\;": "deny",
    "find . -name x -okdir rm {} \\; < /dev/null": "deny",
  }),
  program(["watch"], "watch: its words through `sh -c` (`-x`: as a command)", "judged", watch, {
    "timeout 2 watch -n 0.1 rm x": "deny",
  }),
  program(
    ["parallel", "sem"],
    "GNU parallel: its command through the shell, or each `:::` argument as a command; from its input, asked",
    "judged or asked",
    parallel,
    { "parallel rm ::: x": "deny", "parallel ::: 'rm x'": "deny", "echo 'rm x' | parallel": "ask" },
  ),
  program(["pee"], "pee (moreutils): each argument through the shell", "judged", pee, {
    "echo | pee 'rm x'": "deny",
  }),
  program(
    ["script"],
    "`script -c CMD`: CMD through the shell; without `-c` a shell reading its input",
    "judged or asked",
    script,
    { "script -qc 'rm x' /dev/null": "deny", "script -q --command 'rm x' /dev/null": "deny" },
  ),
  program(["flock"], "`flock FILE CMD…`, `flock FILE -c CMD`", "judged", flock, {
    "flock . rm x": "deny",
    "flock -n . -c 'rm x'": "deny",
  }),
  program(
    ["su", "runuser", "sg"],
    "`su -c`, `runuser -c`, `sg GROUP -c`; without `-c` a shell on the input",
    "judged",
    (argv) => suLike(programName(argv[0]!))(argv),
    { "sg users -c 'rm x'": "deny" },
  ),
  program(["busybox"], "busybox: its applet", "judged", busybox, { "busybox rm x": "deny" }),
  program(
    runnerNames,
    "programs that run a command after fixed operands (`chrt 5 CMD`); with any option, asked",
    "judged",
    (argv) => {
      const name = programName(argv[0]!);
      return runner(name, ONE_OPERAND.has(name) ? 1 : 0)(argv);
    },
    { "chrt 5 rm x": "deny", "strace -f rm x": "ask", "nocache rm x": "deny" },
  ),
  program(
    ["ssh", "scp", "sftp"],
    "ssh, scp, sftp: `-o ProxyCommand=CMD`, `LocalCommand`, `KnownHostsCommand`, `scp -S PROGRAM` run locally; `-F FILE` is asked",
    "judged or asked",
    ssh,
    { "ssh -o ProxyCommand='rm x' tern.invalid": "deny", "ssh -F ./cfg tern.invalid true": "ask" },
  ),
  program(["rsync"], "rsync: `-e CMD`, `--rsh=CMD`", "judged", commandOptions("rsync", [["e", "rsh"]]), {
    "rsync -e 'rm x' tern.invalid:f .": "deny",
  }),
  program(
    ["tar"],
    "tar: `--to-command`, `-I`/`--use-compress-program`, `-F`/`--info-script`, `--checkpoint-action=exec=`, `--rsh-command`",
    "judged",
    commandOptions("tar", [
      [undefined, "to-command"],
      ["I", "use-compress-program"],
      ["F", "info-script"],
      [undefined, "new-volume-script"],
      [undefined, "rsh-command"],
      [undefined, "checkpoint-action", "exec="],
    ]),
    { "echo a > f; tar -cf a.tar f; tar -xf a.tar --to-command='rm x'": "deny" },
  ),
  program(
    ["tmux", "screen"],
    "tmux and screen: shell commands from their arguments and configuration",
    "asked",
    hides("tmux and screen run shell commands the rules cannot follow"),
    { "tmux -S /nonexistent/tern.sock run-shell 'rm x'": "ask" },
  ),
  program(
    ["git"],
    "git: the settings below on `-c`/`--config-env`/`clone -c`; `rebase -x`, `submodule foreach`, `bisect run`, `--upload-pack`…; a command not git's own (an alias) is asked",
    "judged or asked",
    (argv) => git(argv, gitSetting),
    {
      "git -c alias.zz='!rm x' zz": "deny",
      "git --config-env=alias.zz=CMD zz": "ask",
      "git zz": "ask",
      "git -c core.hooksPath=hooks commit -q --allow-empty -m x": "ask",
      "git rebase -x 'rm x' HEAD": "deny",
      "git submodule foreach 'rm x'": "deny",
      "git config alias.zz '!rm x'": "deny",
      "git config core.fsmonitor 'rm x'": "deny",
    },
  ),
  {
    kind: "variable",
    name: /^PROMPT_COMMAND$/,
    what: "`PROMPT_COMMAND`: run before each prompt",
    code: "judged",
    read: (value, name) =>
      value === undefined
        ? { transparent: false, unresolved: `${name} is set to text that is not known` }
        : judge(value),
    examples: { "PROMPT_COMMAND='rm x' bash -i < /dev/null": "deny" },
  },
  {
    kind: "variable",
    name: /^PS[0-4]$/,
    what: "prompts `PS0`–`PS4` (PS4 with xtrace): `$(…)` in them runs",
    code: "judged",
    read: promptValue,
    examples: { "PS4='$(rm x)' bash -xc :": "deny" },
  },
  {
    kind: "variable",
    name: /^(BASH_ENV|ENV)$/,
    what: "`BASH_ENV`, `ENV`: a file a shell runs first",
    code: "asked",
    read: (_value, name) => asked(`${name} makes a shell run a file's commands first`),
    examples: {
      "BASH_ENV=<(echo rm x) bash -c true": "ask",
      "echo 'rm x' > f.sh; BASH_ENV=f.sh bash -c true": "ask",
      "export BASH_ENV=f.sh; echo 'rm x' > f.sh; bash -c true": "ask",
      "echo 'rm x' > f.sh; ENV=f.sh sh -i < /dev/null": "ask",
    },
  },
  {
    kind: "variable",
    name: /^(SHELLOPTS|BASHOPTS|BASH_FUNC_.*)$/,
    what: "`SHELLOPTS`, `BASHOPTS` (xtrace, extdebug…), exported functions `BASH_FUNC_*`",
    code: "asked",
    read: (_value, name) => asked(`${name} changes how a shell it starts runs commands`),
    examples: {
      "SHELLOPTS=xtrace bash -c true": "ask",
      "env 'BASH_FUNC_ls%%=() { rm x; }' bash -c ls": "ask",
    },
  },
  {
    kind: "variable",
    name: /^(PAGER|GIT_PAGER|MANPAGER|SYSTEMD_PAGER|EDITOR|VISUAL|GIT_EDITOR|GIT_SEQUENCE_EDITOR|SUDO_EDITOR|GIT_SSH_COMMAND|GIT_EXTERNAL_DIFF|GIT_PROXY_COMMAND|LESSOPEN|LESSCLOSE)$/,
    what: "pagers, editors and git's command variables (`PAGER`, `GIT_PAGER`, `EDITOR`, `VISUAL`, `GIT_SSH_COMMAND`, `GIT_EXTERNAL_DIFF`, `LESSOPEN`…)",
    code: "judged and asked",
    read: commandValue("the programs it starts"),
    examples: {
      "GIT_PAGER='rm x' git -p help -a": "deny",
      "PAGER=less git log": "ask",
      "export EDITOR=vi; git commit": "ask",
      "declare -n p=PAGER; p=less; export p; git log": "ask",
    },
  },
  {
    kind: "variable",
    name: /^(GIT_CONFIG\w*|GIT_SSH|GIT_ASKPASS|SSH_ASKPASS|SUDO_ASKPASS|GIT_EXEC_PATH|GIT_TEMPLATE_DIR|LD_PRELOAD|LD_AUDIT|LD_LIBRARY_PATH|NODE_OPTIONS|PERL5OPT|PERL5LIB|PYTHONSTARTUP|PYTHONPATH|RUBYOPT)$/,
    what: "variables that make programs run or load code from elsewhere (`GIT_CONFIG_*`, `GIT_SSH`, `*_ASKPASS`, `LD_PRELOAD`, `NODE_OPTIONS`…)",
    code: "asked",
    read: (_value, name) => asked(`${name} makes the programs it starts run code the rules cannot see`),
    examples: {
      "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.zz GIT_CONFIG_VALUE_0='!rm x' git zz": "ask",
      "GIT_CONFIG_PARAMETERS=\"'core.pager'='rm x'\" git -p help": "ask",
    },
  },
  {
    kind: "git-setting",
    key: /^alias\.[^.]+$/,
    what: "`alias.NAME=!CMD`: CMD through the shell (an alias of git commands runs git)",
    code: "judged",
    read: (value, key) =>
      value === undefined
        ? asked(`${key} is set to text only known when it runs`)
        : value.startsWith("!")
          ? judge(value.slice(1))
          : { transparent: false },
    examples: { "git -c alias.zz='!rm x' zz": "deny" },
  },
  {
    kind: "git-setting",
    key: /^(core\.(pager|editor|sshcommand|askpass|fsmonitor|gitproxy)|pager\..+|sequence\.editor|diff\.external|diff\..+\.(command|textconv)|filter\..+\.(clean|smudge|process)|merge\..+\.driver|(diff|merge)tool\..+\.cmd|credential(\..+)?\.helper|gpg(\..+)?\.program|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack|vcs)|sendemail\..+|web\.browser|browser\..+\.(cmd|path))$/,
    what: "git settings whose value is a command (`core.pager`, `core.sshCommand`, `core.fsmonitor`, `diff.external`, filters, `credential.helper`, `gpg.program`…)",
    code: "judged and asked",
    read: (value, key) =>
      value === undefined
        ? asked(`git's ${key} is set to a command only known when it runs`)
        : { ...judge(value), hidden: `git decides when and how it runs ${key}` },
    examples: {
      "git -c core.pager='rm x' -p help -a": "deny",
      "git -c core.sshCommand='rm x' fetch ssh://example.invalid/r": "deny",
      "git -c diff.external=true diff": "ask",
    },
  },
  {
    kind: "git-setting",
    key: /^(core\.hookspath|include\.path|includeif\..+\.path|init\.templatedir|core\.worktree)$/,
    what: "git settings that name files or directories of code (`core.hooksPath`, `include.path`…)",
    code: "asked",
    read: (_value, key) => asked(`git's ${key} makes it run code from files the rules cannot see`),
    examples: { "git -c include.path=evil.cfg zz": "ask" },
  },
];

const PROGRAMS = new Map<string, ProgramExecutor>();
for (const entry of EXECUTORS)
  if (entry.kind === "program") for (const name of entry.names) PROGRAMS.set(name, entry);

/** What a command with a known name runs, or undefined when the table does not know it. */
export function unwrap(argv: readonly StaticWord[]): Unwrapped | undefined {
  return PROGRAMS.get(programName(argv[0]!))?.read(argv);
}

/** What assigning `name` makes the line run, or undefined for an ordinary variable. */
export function variableRuns(name: string, value: StaticWord): Unwrapped | undefined {
  for (const entry of EXECUTORS)
    if (entry.kind === "variable" && entry.name.test(name)) return entry.read(value, name);
  return undefined;
}

function gitSetting(key: string, value: StaticWord): Unwrapped | undefined {
  for (const entry of EXECUTORS)
    if (entry.kind === "git-setting" && entry.key.test(key)) return entry.read(value, key);
  return undefined;
}

/**
 * Programs known to run nothing named in their arguments (`man rm`, `echo rm x`, `grep rm f`).
 * Any other program the table does not know, given the name a deny rule names as an argument
 * (`chronic rm x` where chronic is missing, `foo -- rm x`), may be a wrapper: the rule asks.
 */
const RUNS_NOTHING_NAMED = new Set(
  (
    ": [ true false test echo printf man info whatis apropos help type which whereis cd pushd popd pwd " +
    "ls cat tac head tail less more wc sort uniq cut tr grep egrep fgrep rg ag file stat touch mkdir rmdir " +
    "cp mv ln chmod chown chgrp readlink realpath basename dirname du df date sleep diff cmp tee " +
    "printenv set unset shift export declare typeset local readonly read getopts let wait jobs kill " +
    "pgrep pkill pidof killall ps dpkg apt-cache locate unalias shopt return exit break continue"
  ).split(" "),
);

export function mayRunItsArguments(name: string): boolean {
  const program = programName(name);
  return !PROGRAMS.has(program) && !RUNS_NOTHING_NAMED.has(program);
}
