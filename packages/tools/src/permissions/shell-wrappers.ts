// How programs that run other commands are read: `sudo rm x` runs rm, `xargs rm` runs rm,
// `bash -c 'rm x'` runs a script. Each reader finds what its program runs, reading its options the
// way the real program does; an option it does not know makes the inner command unknown (the rules
// then ask). Which program uses which reader is the executor table's business (shell-executors.ts).

import path from "node:path";
import type { StaticWord } from "./shell-syntax.js";

export interface Unwrapped {
  /** A wrapper that needs no approval of its own (`nice`, `timeout`, …): the inner command decides. */
  transparent: boolean;
  /** The commands it runs; undefined words are unknown. */
  inners?: StaticWord[][];
  /** Bash source it runs: `eval`, `bash -c`, alias values, trap handlers, `env -S`, a shell's heredoc. */
  scripts?: string[];
  /** Files it writes itself (`time -o`, `find -fprint`). */
  writes?: string[];
  /** Why what it runs cannot be read from the source. */
  unresolved?: string;
  /** A shell that reads its script from standard input: the caller supplies a heredoc, if any. */
  readsStdin?: boolean;
  /** Code it runs that no rule can see (a script file, its configuration): deny rules then ask. */
  hidden?: string;
  /** `NAME=value` words it puts in the inner command's environment (`env`, `sudo`). */
  assigns?: string[];
}

/** Short options with an argument, short options without, long options with an argument, long without. */
interface OptionSpec {
  withArg?: string;
  flags?: string;
  /** Short options whose argument, if any, is attached (`xargs -i{}`). */
  optionalArg?: string;
  longWithArg?: readonly string[];
  longFlags?: readonly string[];
  /** `-5` style numbers (nice). */
  numeric?: boolean;
}

interface Options {
  /** Index of the first operand. */
  next: number;
  /** Options seen, by name (`-u`, `--user`), with their arguments. */
  seen: Map<string, StaticWord>;
}

/** Reads options from `argv[from]` on; undefined when one is unknown or not static. */
function readOptions(argv: readonly StaticWord[], from: number, spec: OptionSpec): Options | undefined {
  const seen = new Map<string, StaticWord>();
  let i = from;
  while (i < argv.length) {
    const word = argv[i];
    if (word === undefined) return undefined;
    if (word === "--") return { next: i + 1, seen };
    if (!word.startsWith("-") || word === "-") return { next: i, seen };
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const name = eq === -1 ? word : word.slice(0, eq);
      const bare = name.slice(2);
      if (spec.longWithArg?.includes(bare)) {
        if (eq === -1) {
          seen.set(name, argv[i + 1]);
          i += 2;
        } else {
          seen.set(name, word.slice(eq + 1));
          i++;
        }
      } else if (spec.longFlags?.includes(bare)) {
        seen.set(name, eq === -1 ? "" : word.slice(eq + 1));
        i++;
      } else return undefined;
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(word)) {
      i++;
      continue;
    }
    let consumedNext = false;
    for (let k = 1; k < word.length; k++) {
      const letter = word[k]!;
      if (spec.withArg?.includes(letter)) {
        const attached = word.slice(k + 1);
        if (attached !== "") seen.set(`-${letter}`, attached);
        else {
          seen.set(`-${letter}`, argv[i + 1]);
          consumedNext = true;
        }
        break;
      }
      if (spec.optionalArg?.includes(letter)) {
        seen.set(`-${letter}`, word.slice(k + 1));
        break;
      }
      if (!spec.flags?.includes(letter)) return undefined;
      seen.set(`-${letter}`, "");
    }
    i += consumedNext ? 2 : 1;
  }
  return { next: i, seen };
}

/**
 * The `NAME=value` words before the command of `env` and `sudo`. Any word with a `=` is one, as
 * env itself reads them (`env 'a b=1' rm x` runs rm); undefined when a word is not known.
 */
function assignmentsAt(
  argv: readonly StaticWord[],
  from: number,
): { next: number; assigns: string[] } | undefined {
  let i = from;
  while (i < argv.length && argv[i] !== undefined && argv[i]!.includes("=")) i++;
  if (i < argv.length && argv[i] === undefined) return undefined;
  return { next: i, assigns: argv.slice(from, i) as string[] };
}

function runs(transparent: boolean, inner: StaticWord[]): Unwrapped {
  return inner.length > 0 ? { transparent, inners: [inner] } : { transparent };
}

const unknown = (name: string): Unwrapped => ({
  transparent: false,
  unresolved: `the options of ${name} could not be read`,
});

/** Runs what follows the options (the usual shape: `nice -n 5 CMD…`). */
export function prefixWrapper(name: string, spec: OptionSpec, transparent = true) {
  return (argv: readonly StaticWord[]): Unwrapped => {
    const options = readOptions(argv, 1, spec);
    if (!options) return unknown(name);
    const inner = argv.slice(options.next);
    return runs(transparent, inner);
  };
}

export function sudo(argv: readonly StaticWord[]): Unwrapped {
  const options = readOptions(argv, 1, {
    withArg: "CDghpRrTtUu",
    flags: "AbEHiKknPSsv",
    longWithArg: [
      "chdir",
      "close-from",
      "group",
      "host",
      "prompt",
      "role",
      "type",
      "command-timeout",
      "other-user",
      "user",
      "chroot",
    ],
    longFlags: [
      "askpass",
      "background",
      "preserve-env",
      "preserve-groups",
      "set-home",
      "login",
      "non-interactive",
      "shell",
      "stdin",
      "reset-timestamp",
      "remove-timestamp",
      "validate",
    ],
  });
  if (!options) return unknown("sudo");
  const assigned = assignmentsAt(argv, options.next);
  if (assigned === undefined) return unknown("sudo");
  return { ...runs(false, argv.slice(assigned.next)), assigns: assigned.assigns };
}

export function env(argv: readonly StaticWord[]): Unwrapped {
  // A lone "-" is the old spelling of -i.
  let from = 1;
  while (argv[from] === "-") from++;
  const options = readOptions(argv, from, {
    withArg: "uCS",
    flags: "i0v",
    longWithArg: ["unset", "chdir", "split-string", "block-signal", "default-signal", "ignore-signal"],
    longFlags: ["ignore-environment", "null", "debug", "list-signal-handling"],
  });
  if (!options) return unknown("env");
  const assigned = assignmentsAt(argv, options.next);
  if (assigned === undefined) return unknown("env");
  const { next: start, assigns } = assigned;
  const split = options.seen.get("-S") ?? options.seen.get("--split-string");
  const rest = argv.slice(start);
  // Plain `env CMD` only looks the command up; options and assignments change what it runs with.
  const transparent = options.seen.size === 0 && start === options.next && from === 1;
  if (options.seen.has("-S") || options.seen.has("--split-string")) {
    if (split === undefined || rest.some((w) => w === undefined))
      return { transparent: false, unresolved: "env -S splits a string that is not known" };
    return {
      transparent: false,
      scripts: [[split, ...(rest as string[]).map(shellQuote)].join(" ")],
      assigns,
    };
  }
  return { ...runs(transparent, rest), assigns };
}

export function timeout(argv: readonly StaticWord[]): Unwrapped {
  const options = readOptions(argv, 1, {
    withArg: "ks",
    flags: "v",
    longWithArg: ["kill-after", "signal"],
    longFlags: ["foreground", "preserve-status", "verbose"],
  });
  if (!options) return unknown("timeout");
  const inner = argv.slice(options.next + 1); // the operand after the options is the duration
  return runs(true, inner);
}

export function timeCommand(argv: readonly StaticWord[]): Unwrapped {
  const options = readOptions(argv, 1, {
    withArg: "fo",
    flags: "apqv",
    longWithArg: ["format", "output"],
    longFlags: ["append", "portability", "quiet", "verbose"],
  });
  if (!options) return unknown("time");
  const out = options.seen.get("-o") ?? options.seen.get("--output");
  const inner = argv.slice(options.next);
  const result = runs(true, inner);
  if (options.seen.has("-o") || options.seen.has("--output")) result.writes = [out ?? "(unknown file)"];
  return result;
}

export function command(argv: readonly StaticWord[]): Unwrapped {
  const options = readOptions(argv, 1, { flags: "pvV" });
  if (!options) return unknown("command");
  // `command -v rm` only says where rm is.
  if (options.seen.has("-v") || options.seen.has("-V")) return { transparent: false };
  const inner = argv.slice(options.next);
  return runs(true, inner);
}

/** The words xargs appends come from its input: the inner command ends with an unknown word. */
export function xargs(argv: readonly StaticWord[]): Unwrapped {
  const options = readOptions(argv, 1, {
    withArg: "adEILnPs",
    optionalArg: "eil",
    flags: "0oprtx",
    longWithArg: ["arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"],
    longFlags: [
      "null",
      "no-run-if-empty",
      "interactive",
      "verbose",
      "exit",
      "open-tty",
      "show-limits",
      "eof",
      "replace",
      "max-lines",
    ],
  });
  if (!options) return unknown("xargs");
  const inner = argv.slice(options.next);
  // With no command xargs runs echo.
  return runs(false, inner.length > 0 ? [...inner, undefined] : []);
}

const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
const FIND_WRITES = new Set(["-fprint", "-fprint0", "-fprintf", "-fls"]);

/** `find … -exec CMD {} ;` runs CMD once per file; `{}` stands for a file name (unknown). */
export function find(argv: readonly StaticWord[]): Unwrapped {
  const result: Unwrapped = { transparent: false };
  const inners: StaticWord[][] = [];
  const writes: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i];
    if (word !== undefined && FIND_WRITES.has(word)) writes.push(argv[i + 1] ?? "(unknown file)");
    if (word === undefined || !FIND_EXEC.has(word)) continue;
    let end = i + 1;
    while (end < argv.length && argv[end] !== ";" && argv[end] !== "+") end++;
    inners.push(argv.slice(i + 1, end).map((w) => (w?.includes("{}") ? undefined : w)));
    i = end;
  }
  if (writes.length > 0) result.writes = writes;
  if (inners.length > 0) result.inners = inners;
  return result;
}

export const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "rbash"]);

/**
 * `bash -c SCRIPT`, `bash -lc SCRIPT`, `bash` reading stdin; `bash FILE`, `--rcfile FILE` and
 * `--init-file FILE` run a file the rules cannot see.
 */
export function shell(argv: readonly StaticWord[]): Unwrapped {
  let i = 1;
  let dashC = false;
  let readsStdin = false;
  let startupFile = false;
  while (i < argv.length) {
    const word = argv[i];
    if (word === undefined) return { transparent: false, unresolved: "the shell's options are not known" };
    if (word === "--" || word === "-") {
      i++;
      break;
    }
    if (word === "--rcfile" || word === "--init-file") startupFile = true;
    if (/^[-+]o$/.test(word) || word === "-O" || word === "+O" || startupFile) {
      i += 2;
      continue;
    }
    if (word.startsWith("--")) {
      i++;
      continue;
    }
    if (!/^[-+]/.test(word)) break;
    if (word.startsWith("-") && word.includes("c")) dashC = true;
    if (word.startsWith("-") && word.includes("s")) readsStdin = true;
    i++;
  }
  const hidden = startupFile ? { hidden: "the shell first runs a startup file the rules cannot see" } : {};
  if (dashC) {
    const script = argv[i];
    if (script === undefined)
      return { transparent: false, unresolved: "the shell runs a script that is not known from the source" };
    return { transparent: false, scripts: [script], ...hidden };
  }
  if (readsStdin || i >= argv.length) return { transparent: false, readsStdin: true, ...hidden };
  return { ...scriptFile(argv[i]), ...hidden };
}

/** Files that are the shell's own standard input. */
const STDIN_FILES = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);

/**
 * A script file run by a shell or `source`: its commands are not known from the line (deny rules
 * ask), and one named by a substitution (`source <(…)`) or standard input is the output of a command.
 */
function scriptFile(file: StaticWord): Unwrapped {
  if (file === undefined)
    return { transparent: false, unresolved: "a shell runs a script file named only when it runs" };
  if (STDIN_FILES.has(file)) return { transparent: false, readsStdin: true };
  return { transparent: false, hidden: `it runs the commands in ${file}, which the rules cannot see` };
}

export function source(argv: readonly StaticWord[]): Unwrapped {
  return argv.length > 1 ? scriptFile(argv[1]) : { transparent: false };
}

/** `su -c CMD`, `runuser -c CMD`, `sg GROUP -c CMD`: a script; without -c an interactive shell. */
export function suLike(name: string) {
  return (argv: readonly StaticWord[]): Unwrapped => {
    const at = argv.findIndex((w, i) => i > 0 && (w === "-c" || w === "--command"));
    if (at === -1) {
      if (argv.some((w, i) => i > 0 && (w === undefined || /^--?c/.test(w) || w.startsWith("--command="))))
        return unknown(name);
      return { transparent: false, readsStdin: true };
    }
    const script = argv[at + 1];
    if (script === undefined)
      return { transparent: false, unresolved: `${name} runs a script that is not known` };
    return { transparent: false, scripts: [script] };
  };
}

/** `watch CMD ARGS…` runs its words joined through `sh -c`. */
export function watch(argv: readonly StaticWord[]): Unwrapped {
  const options = readOptions(argv, 1, {
    withArg: "dnq",
    flags: "bcegprtwx",
    longWithArg: ["differences", "interval", "equexit"],
    longFlags: ["beep", "color", "no-color", "errexit", "chgexit", "precise", "no-title", "no-wrap", "exec"],
  });
  if (!options) return unknown("watch");
  const rest = argv.slice(options.next);
  if (rest.some((w) => w === undefined))
    return { transparent: false, unresolved: "watch runs text that is not known" };
  if (options.seen.has("-x") || options.seen.has("--exec")) return runs(false, rest);
  return { transparent: false, scripts: rest.length > 0 ? [(rest as string[]).join(" ")] : [] };
}

/**
 * Programs that run the command after a fixed number of operands (`chrt 5 CMD`, `flock FILE CMD`).
 * Their options are not modelled: with any option the inner command is unknown.
 */
export function runner(name: string, operands: number) {
  return (argv: readonly StaticWord[]): Unwrapped => {
    if (argv.slice(1).some((w) => w === undefined || w.startsWith("-"))) return unknown(name);
    return runs(false, argv.slice(1 + operands));
  };
}

/** `hash -p /bin/rm ls` makes `ls` run rm. */
export function hash(argv: readonly StaticWord[]): Unwrapped {
  if (argv.some((w) => w === undefined || /^-\w*p/.test(w)))
    return { transparent: false, unresolved: "hash -p makes a name run another program" };
  return { transparent: false };
}

/** `mapfile -C CALLBACK` evaluates CALLBACK for every few lines read. */
export function mapfile(argv: readonly StaticWord[]): Unwrapped {
  const at = argv.findIndex((w, i) => i > 0 && (w === undefined || w.startsWith("-C")));
  if (at === -1) return { transparent: false };
  const word = argv[at];
  const callback = word !== undefined && word.length > 2 ? word.slice(2) : argv[at + 1];
  if (callback === undefined)
    return { transparent: false, unresolved: "mapfile -C runs a callback that is not known" };
  return { transparent: false, scripts: [callback] };
}

export function evalCommand(argv: readonly StaticWord[]): Unwrapped {
  const args = argv.slice(1);
  if (args.some((w) => w === undefined))
    return { transparent: false, unresolved: "eval runs text that is not known from the source" };
  return { transparent: false, scripts: [(args as string[]).join(" ")] };
}

/** `alias r=rm`: the value runs wherever `r` is used later. */
export function alias(argv: readonly StaticWord[]): Unwrapped {
  const scripts: string[] = [];
  for (const word of argv.slice(1)) {
    if (word === undefined)
      return { transparent: false, unresolved: "an alias is defined from unknown text" };
    const eq = word.indexOf("=");
    if (eq > 0) scripts.push(word.slice(eq + 1));
  }
  return { transparent: false, scripts };
}

/** `trap 'CMD' SIGNAL…` runs CMD later. */
export function trap(argv: readonly StaticWord[]): Unwrapped {
  let i = 1;
  if (argv[i] === "--") i++;
  if (argv[i] === "-p" || argv[i] === "-l" || argv.length - i < 2) return { transparent: false };
  const handler = argv[i];
  if (handler === undefined)
    return { transparent: false, unresolved: "trap installs a handler that is not known" };
  return { transparent: false, scripts: handler === "-" || handler === "" ? [] : [handler] };
}

/** `busybox rm x` runs its applet; `busybox sh -c` a script. */
export function busybox(argv: readonly StaticWord[]): Unwrapped {
  const inner = argv.slice(1);
  return runs(false, inner);
}

/** `script -c CMD [FILE]` runs CMD through the shell; without -c an interactive shell on its input. */
export function script(argv: readonly StaticWord[]): Unwrapped {
  const options = readOptions(argv, 1, {
    withArg: "cBEIOTmo",
    optionalArg: "t",
    flags: "aefqhV",
    longWithArg: [
      "command",
      "echo",
      "log-in",
      "log-out",
      "log-io",
      "log-timing",
      "logging-format",
      "output-limit",
    ],
    longFlags: ["append", "return", "flush", "force", "quiet", "timing", "help", "version"],
  });
  if (!options) return unknown("script");
  const logs = argv.slice(options.next);
  const writes = logs.filter((file) => file !== "/dev/null").map((file) => file ?? "(unknown file)");
  const result: Unwrapped = { transparent: false, ...(writes.length > 0 ? { writes } : {}) };
  if (!options.seen.has("-c") && !options.seen.has("--command")) return { ...result, readsStdin: true };
  const command = options.seen.get("-c") ?? options.seen.get("--command");
  if (command === undefined) return { ...result, unresolved: "script -c runs a command that is not known" };
  return { ...result, scripts: [command] };
}

/** `flock [options] FILE CMD…` or `flock [options] FILE -c CMD` (through the shell). */
export function flock(argv: readonly StaticWord[]): Unwrapped {
  const options = readOptions(argv, 1, {
    withArg: "wE",
    flags: "sexnoFuhV",
    longWithArg: ["timeout", "wait", "conflict-exit-code"],
    longFlags: ["shared", "exclusive", "unlock", "nonblock", "nb", "close", "no-fork", "verbose"],
  });
  if (!options) return unknown("flock");
  const flag = argv[options.next + 1];
  if (flag === "-c" || flag === "--command") {
    const command = argv[options.next + 2];
    if (command === undefined)
      return { transparent: false, unresolved: "flock -c runs a command that is not known" };
    return { transparent: false, scripts: [command] };
  }
  return runs(false, argv.slice(options.next + 1));
}

/**
 * GNU parallel: `parallel CMD… ::: ARGS` runs CMD (through the shell) with each argument;
 * without CMD each argument is a command; without `:::` the commands come from its input.
 * Its many options are not modelled: with any, what it runs is unknown.
 */
export function parallel(argv: readonly StaticWord[]): Unwrapped {
  const words = argv.slice(1);
  if (words.some((w) => w === undefined || /^-/.test(w)))
    return { transparent: false, unresolved: "the options of parallel could not be read" };
  const known = words as string[];
  const sources = known.findIndex((w) => /^:::/.test(w) || w === "::::");
  const commandWords = sources === -1 ? known : known.slice(0, sources);
  if (commandWords.length > 0) return { transparent: false, scripts: [commandWords.join(" ")] };
  if (sources === -1)
    return { transparent: false, unresolved: "parallel runs commands from its input, which is not known" };
  if (known[sources] !== ":::")
    return { transparent: false, unresolved: "parallel runs commands from a file the rules cannot see" };
  return { transparent: false, scripts: known.slice(sources + 1).filter((w) => !/^:::/.test(w)) };
}

/** `pee CMD…` (moreutils) runs each argument through the shell. */
export function pee(argv: readonly StaticWord[]): Unwrapped {
  const args = argv.slice(1);
  if (args.some((w) => w === undefined))
    return { transparent: false, unresolved: "pee runs commands that are not known" };
  return { transparent: false, scripts: (args as string[]).filter((w) => !w.startsWith("--")) };
}

/** `compgen -C CMD` and `complete -C CMD` run CMD to list completions. */
export function completion(argv: readonly StaticWord[]): Unwrapped {
  const at = argv.findIndex((w, i) => i > 0 && (w === undefined || /^-\w*C/.test(w)));
  if (at === -1) return { transparent: false };
  const word = argv[at];
  const attached = word?.slice(word.indexOf("C") + 1);
  const callback = attached ? attached : argv[at + 1];
  if (callback === undefined)
    return { transparent: false, unresolved: "a completion runs a command that is not known" };
  return { transparent: false, scripts: [callback] };
}

/** The values of `-L VALUE`, `-LVALUE` (also bundled: `-iL VALUE`), `--long VALUE` and `--long=VALUE`. */
export function optionValues(
  args: readonly StaticWord[],
  short: string | undefined,
  long: string,
): StaticWord[] {
  const values: StaticWord[] = [];
  for (let k = 0; k < args.length; k++) {
    const word = args[k];
    if (word === undefined) continue;
    if (word === `--${long}`) values.push(args[++k]);
    else if (word.startsWith(`--${long}=`)) values.push(word.slice(long.length + 3));
    else if (short !== undefined && new RegExp(`^-[A-Za-z]*${short}`).test(word)) {
      const rest = word.slice(word.indexOf(short, 1) + 1);
      values.push(rest !== "" ? rest : args[++k]);
    }
  }
  return values;
}

/**
 * Options whose value is a command the program runs (`tar --to-command=CMD`, `tar -I CMD`,
 * `rsync -e CMD`, `scp -S PROGRAM`): [short letter or undefined, long name, prefix of the value
 * before the command (`--checkpoint-action=exec=CMD`)].
 */
export function commandOptions(name: string, options: readonly [string | undefined, string, string?][]) {
  return (argv: readonly StaticWord[]): Unwrapped => {
    const scripts: string[] = [];
    for (const [short, long, prefix = ""] of options)
      for (const value of optionValues(argv.slice(1), short, long)) {
        if (value === undefined)
          return { transparent: false, unresolved: `${name} --${long} runs a command that is not known` };
        if (value.startsWith(prefix)) scripts.push(value.slice(prefix.length));
      }
    return scripts.length > 0 ? { transparent: false, scripts } : { transparent: false };
  };
}

/** ssh's options that run a local command: `-o ProxyCommand=CMD` (also `-oKey CMD`); `-F FILE` can too. */
const SSH_COMMAND_KEY = /^\s*(ProxyCommand|LocalCommand|KnownHostsCommand)\s*[=\s]\s*([\s\S]*)$/i;

/** Letters of ssh, scp and sftp that take a value (the union of the three). */
const SSH_WITH_VALUE = "BbcDEeFIiJLlmOoPpQRSWw";

/** `ssh`, `scp`, `sftp`: the commands their options run locally (a remote command runs elsewhere). */
export function ssh(argv: readonly StaticWord[]): Unwrapped {
  const name = programName(argv[0]!);
  const scripts: string[] = [];
  let hidden: string | undefined;
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i];
    if (word === undefined || word === "--" || !/^-[A-Za-z]/.test(word)) continue;
    const at = [...word.slice(1)].findIndex((letter) => SSH_WITH_VALUE.includes(letter)) + 1;
    if (at === 0) continue;
    const letter = word[at]!;
    const value = word.length > at + 1 ? word.slice(at + 1) : argv[++i];
    if (value === undefined)
      return { transparent: false, unresolved: `${name} -${letter} is given a value that is not known` };
    const command = letter === "o" ? SSH_COMMAND_KEY.exec(value) : null;
    if (command) scripts.push(command[2]!);
    if (letter === "F")
      hidden = `${name} -F reads a configuration file, which can run commands the rules cannot see`;
    if (letter === "S" && name !== "ssh") scripts.push(value);
  }
  return { transparent: false, ...(scripts.length > 0 ? { scripts } : {}), ...(hidden ? { hidden } : {}) };
}

/** A program that runs code the line does not show (history, a loaded builtin, its own config). */
export function hides(what: string, when: (argv: readonly StaticWord[]) => boolean = () => true) {
  return (argv: readonly StaticWord[]): Unwrapped =>
    when(argv) ? { transparent: false, hidden: what } : { transparent: false };
}

/** The program a command name runs: `/bin/rm` and `./rm` are rm. */
export function programName(word: string): string {
  return word.includes("/") ? path.posix.basename(word) : word;
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}
