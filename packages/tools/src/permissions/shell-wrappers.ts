// Commands that run other commands: `sudo rm x` runs rm, `xargs rm` runs rm, `bash -c 'rm x'` runs
// a script. For each known wrapper this finds what it runs, reading its options the way the real
// program does; an option it does not know makes the inner command unknown (the rules then ask).

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
}

/** Short options with an argument, short options without, long options with an argument, long without. */
interface OptionSpec {
  withArg?: string;
  flags?: string;
  /** Short options whose argument, if any, is attached (`xargs -i{}`). */
  optionalArg?: string;
  longWithArg?: string[];
  longFlags?: string[];
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

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function skipAssignments(argv: readonly StaticWord[], from: number): number | undefined {
  let i = from;
  while (i < argv.length && argv[i] !== undefined && ASSIGNMENT.test(argv[i]!)) i++;
  return i < argv.length && argv[i] === undefined ? undefined : i;
}

function runs(transparent: boolean, inner: StaticWord[]): Unwrapped {
  return inner.length > 0 ? { transparent, inners: [inner] } : { transparent };
}

const unknown = (name: string): Unwrapped => ({
  transparent: false,
  unresolved: `the options of ${name} could not be read`,
});

/** Runs what follows the options (the usual shape: `nice -n 5 CMD…`). */
function prefixWrapper(name: string, spec: OptionSpec, transparent = true) {
  return (argv: readonly StaticWord[]): Unwrapped => {
    const options = readOptions(argv, 1, spec);
    if (!options) return unknown(name);
    const inner = argv.slice(options.next);
    return runs(transparent, inner);
  };
}

function sudo(argv: readonly StaticWord[]): Unwrapped {
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
  const start = skipAssignments(argv, options.next);
  if (start === undefined) return unknown("sudo");
  const inner = argv.slice(start);
  return runs(false, inner);
}

function env(argv: readonly StaticWord[]): Unwrapped {
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
  const start = skipAssignments(argv, options.next);
  if (start === undefined) return unknown("env");
  const split = options.seen.get("-S") ?? options.seen.get("--split-string");
  const rest = argv.slice(start);
  // Plain `env CMD` only looks the command up; options and assignments change what it runs with.
  const transparent = options.seen.size === 0 && start === options.next && from === 1;
  if (options.seen.has("-S") || options.seen.has("--split-string")) {
    if (split === undefined || rest.some((w) => w === undefined))
      return { transparent: false, unresolved: "env -S splits a string that is not known" };
    return { transparent: false, scripts: [[split, ...(rest as string[]).map(shellQuote)].join(" ")] };
  }
  return runs(transparent, rest);
}

function timeout(argv: readonly StaticWord[]): Unwrapped {
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

function timeCommand(argv: readonly StaticWord[]): Unwrapped {
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

function command(argv: readonly StaticWord[]): Unwrapped {
  const options = readOptions(argv, 1, { flags: "pvV" });
  if (!options) return unknown("command");
  // `command -v rm` only says where rm is.
  if (options.seen.has("-v") || options.seen.has("-V")) return { transparent: false };
  const inner = argv.slice(options.next);
  return runs(true, inner);
}

/** The words xargs appends come from its input: the inner command ends with an unknown word. */
function xargs(argv: readonly StaticWord[]): Unwrapped {
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
function find(argv: readonly StaticWord[]): Unwrapped {
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

const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "rbash"]);

/** `bash -c SCRIPT`, `bash -lc SCRIPT`, `bash` reading stdin; `bash FILE` runs a file rules cannot see. */
function shell(argv: readonly StaticWord[]): Unwrapped {
  let i = 1;
  let dashC = false;
  let readsStdin = false;
  while (i < argv.length) {
    const word = argv[i];
    if (word === undefined) return { transparent: false, unresolved: "the shell's options are not known" };
    if (word === "--" || word === "-") {
      i++;
      break;
    }
    if (
      /^[-+]o$/.test(word) ||
      word === "-O" ||
      word === "+O" ||
      word === "--rcfile" ||
      word === "--init-file"
    ) {
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
  if (dashC) {
    const script = argv[i];
    if (script === undefined)
      return { transparent: false, unresolved: "the shell runs a script that is not known from the source" };
    return { transparent: false, scripts: [script] };
  }
  if (readsStdin || i >= argv.length) return { transparent: false, readsStdin: true };
  return scriptFile(argv[i]);
}

/** Files that are the shell's own standard input. */
const STDIN_FILES = new Set(["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);

/**
 * A script file run by a shell or `source`: its content is not checked (like any program's), but
 * one named by a substitution (`source <(…)`) or standard input is the output of a command.
 */
function scriptFile(file: StaticWord): Unwrapped {
  if (file === undefined)
    return { transparent: false, unresolved: "a shell runs a script file named only when it runs" };
  if (STDIN_FILES.has(file)) return { transparent: false, readsStdin: true };
  return { transparent: false };
}

function source(argv: readonly StaticWord[]): Unwrapped {
  return argv.length > 1 ? scriptFile(argv[1]) : { transparent: false };
}

/** `su -c CMD`, `runuser -c CMD`, `sg GROUP -c CMD`: a script; without -c an interactive shell. */
function suLike(name: string) {
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
function watch(argv: readonly StaticWord[]): Unwrapped {
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
function runner(name: string, operands: number) {
  return (argv: readonly StaticWord[]): Unwrapped => {
    if (argv.slice(1).some((w) => w === undefined || w.startsWith("-"))) return unknown(name);
    return runs(false, argv.slice(1 + operands));
  };
}

/** `hash -p /bin/rm ls` makes `ls` run rm. */
function hash(argv: readonly StaticWord[]): Unwrapped {
  if (argv.some((w) => w === undefined || /^-\w*p/.test(w)))
    return { transparent: false, unresolved: "hash -p makes a name run another program" };
  return { transparent: false };
}

/** `mapfile -C CALLBACK` evaluates CALLBACK for every few lines read. */
function mapfile(argv: readonly StaticWord[]): Unwrapped {
  const at = argv.findIndex((w, i) => i > 0 && (w === undefined || w.startsWith("-C")));
  if (at === -1) return { transparent: false };
  const word = argv[at];
  const callback = word !== undefined && word.length > 2 ? word.slice(2) : argv[at + 1];
  if (callback === undefined)
    return { transparent: false, unresolved: "mapfile -C runs a callback that is not known" };
  return { transparent: false, scripts: [callback] };
}

function evalCommand(argv: readonly StaticWord[]): Unwrapped {
  const args = argv.slice(1);
  if (args.some((w) => w === undefined))
    return { transparent: false, unresolved: "eval runs text that is not known from the source" };
  return { transparent: false, scripts: [(args as string[]).join(" ")] };
}

/** `alias r=rm`: the value runs wherever `r` is used later. */
function alias(argv: readonly StaticWord[]): Unwrapped {
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
function trap(argv: readonly StaticWord[]): Unwrapped {
  let i = 1;
  if (argv[i] === "--") i++;
  if (argv[i] === "-p" || argv[i] === "-l" || argv.length - i < 2) return { transparent: false };
  const handler = argv[i];
  if (handler === undefined)
    return { transparent: false, unresolved: "trap installs a handler that is not known" };
  return { transparent: false, scripts: handler === "-" || handler === "" ? [] : [handler] };
}

/** `busybox rm x` runs its applet; `busybox sh -c` a script. */
function busybox(argv: readonly StaticWord[]): Unwrapped {
  const inner = argv.slice(1);
  return runs(false, inner);
}

type Unwrapper = (argv: readonly StaticWord[]) => Unwrapped;

const WRAPPERS: Record<string, Unwrapper> = {
  sudo,
  doas: prefixWrapper("doas", { withArg: "uC", flags: "Lns" }, false),
  env,
  nice: prefixWrapper("nice", { withArg: "n", longWithArg: ["adjustment"], numeric: true }),
  timeout,
  ionice: prefixWrapper("ionice", {
    withArg: "cnpPu",
    flags: "t",
    longWithArg: ["class", "classdata", "pid", "pgid", "uid"],
    longFlags: ["ignore"],
  }),
  stdbuf: prefixWrapper("stdbuf", { withArg: "ioe", longWithArg: ["input", "output", "error"] }),
  nohup: prefixWrapper("nohup", {}),
  time: timeCommand,
  command,
  builtin: prefixWrapper("builtin", {}),
  exec: prefixWrapper("exec", { withArg: "a", flags: "cl" }),
  setsid: prefixWrapper("setsid", { flags: "cfw", longFlags: ["ctty", "fork", "wait"] }),
  xargs,
  find,
  eval: evalCommand,
  alias,
  trap,
  busybox,
  // mvdan/sh reads `time -p -- rm x` as running a command named "--"; bash runs rm.
  "--": (argv) => runs(true, argv.slice(1)),
  source,
  ".": source,
  su: suLike("su"),
  runuser: suLike("runuser"),
  sg: suLike("sg"),
  watch,
  chrt: runner("chrt", 1),
  taskset: runner("taskset", 1),
  flock: runner("flock", 1),
  chroot: runner("chroot", 1),
  setarch: runner("setarch", 1),
  unshare: runner("unshare", 0),
  nsenter: runner("nsenter", 0),
  pkexec: runner("pkexec", 0),
  strace: runner("strace", 0),
  ltrace: runner("ltrace", 0),
  valgrind: runner("valgrind", 0),
  fakeroot: runner("fakeroot", 0),
  numactl: runner("numactl", 0),
  prlimit: runner("prlimit", 0),
  "systemd-run": runner("systemd-run", 0),
  hash,
  mapfile,
  readarray: mapfile,
};

/** What a command with a known name runs, or undefined when it runs nothing else. */
export function unwrap(argv: readonly StaticWord[]): Unwrapped | undefined {
  const name = programName(argv[0]!);
  if (SHELLS.has(name)) return shell(argv);
  return WRAPPERS[name]?.(argv);
}

/** The program a command name runs: `/bin/rm` and `./rm` are rm. */
export function programName(word: string): string {
  return word.includes("/") ? path.posix.basename(word) : word;
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}
