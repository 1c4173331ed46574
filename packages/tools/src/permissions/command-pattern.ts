// A bash rule's pattern matched against one command's parsed words (argv), not its raw text.
// `npm test` is exactly those words; `npm test:*` those words and any after; a `*` word stands
// for one or more words, a `*` inside a word for any characters, and a last word ending in `*`
// (`rm -rf*`) also lets any words follow. Allow rules are strict: a
// wildcard never stands for a word only the run knows, nor for a git option that runs other
// programs (`-c`, `--config-env`, `-C`, pagers, aliases) unless the rule spells it out. Deny rules
// are broad: an unknown word might be what they name, so the answer is then "maybe" (ask).

import type { StaticWord } from "./shell-syntax.js";
import { programName } from "./shell-wrappers.js";

export type Match = "yes" | "maybe" | "no";

const ORDER: Record<Match, number> = { no: 0, maybe: 1, yes: 2 };
const worse = (a: Match, b: Match): Match => (ORDER[a] <= ORDER[b] ? a : b);
const better = (a: Match, b: Match): Match => (ORDER[a] >= ORDER[b] ? a : b);

export class CommandPattern {
  private readonly tokens: string[];
  private prefix: boolean;

  constructor(readonly text: string) {
    let body = text.trim();
    this.prefix = body.endsWith(":*");
    if (this.prefix) body = body.slice(0, -2);
    this.tokens = body.split(/\s+/).filter((t) => t !== "");
    // `rm -rf*` was "any text after": the last word is a glob and any words may follow.
    const last = this.tokens.at(-1);
    if (last !== undefined && last !== "*" && last.endsWith("*")) this.prefix = true;
  }

  /** For allow rules: "yes" only when every word is accounted for by what the rule says. */
  allows(words: readonly StaticWord[]): boolean {
    const risky = riskyWords(words);
    return (
      this.match(
        words,
        0,
        0,
        (i, trailing) => {
          if (risky[i]) return false;
          // A word only the run knows may be matched by a trailing `:*` (never for git: it could be `-c …`).
          return words[i] !== undefined || (trailing && words[0] !== "git");
        },
        false,
      ) === "yes"
    );
  }

  /** For deny rules: the program may be spelt with a path (`/bin/rm` is rm). */
  denies(words: readonly StaticWord[]): Match {
    const name = words[0];
    if (name === undefined) return this.tokens.length > 0 ? "maybe" : "no";
    const asWritten = this.match(words, 0, 0, () => true, true);
    if (asWritten === "yes" || !name.includes("/")) return asWritten;
    return better(
      asWritten,
      this.match([programName(name), ...words.slice(1)], 0, 0, () => true, true),
    );
  }

  private match(
    words: readonly StaticWord[],
    ti: number,
    wi: number,
    consumable: (i: number, trailing: boolean) => boolean,
    unknownMatches: boolean,
  ): Match {
    if (ti === this.tokens.length) {
      if (wi === words.length) return "yes";
      if (!this.prefix) return "no";
      for (let i = wi; i < words.length; i++) if (!consumable(i, true)) return "no";
      return "yes";
    }
    const token = this.tokens[ti]!;
    if (token === "*") {
      let best: Match = "no";
      for (let end = wi + 1; end <= words.length; end++) {
        if (!consumable(end - 1, false)) break;
        best = better(best, this.match(words, ti + 1, end, consumable, unknownMatches));
        if (best === "yes") break;
      }
      return best;
    }
    if (wi === words.length) return "no";
    const word = words[wi];
    let here: Match;
    if (word === undefined) here = unknownMatches ? "maybe" : "no";
    else here = wordMatches(token, word) ? "yes" : "no";
    if (here === "no") return "no";
    return worse(here, this.match(words, ti + 1, wi + 1, consumable, unknownMatches));
  }
}

function wordMatches(token: string, word: string): boolean {
  if (!token.includes("*")) return token === word;
  const source = token
    .split("*")
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`, "s").test(word);
}

/** git's own commands; any other name is an alias, which can run a shell command from config. */
export const GIT_COMMANDS: ReadonlySet<string> = new Set(
  (
    "add am annotate apply archive bisect blame branch bundle cat-file check-attr check-ignore check-mailmap " +
    "check-ref-format checkout cherry cherry-pick clean clone commit commit-graph commit-tree config count-objects " +
    "describe diff diff-files diff-index diff-tree difftool fetch for-each-ref format-patch fsck gc grep " +
    "hash-object help init log ls-files ls-remote ls-tree merge merge-base merge-file mergetool mv name-rev notes " +
    "pull push range-diff read-tree rebase reflog remote repack replace reset restore rev-list rev-parse revert rm " +
    "shortlog show show-branch show-ref sparse-checkout stash status stripspace submodule switch symbolic-ref tag " +
    "update-index update-ref var verify-commit verify-pack verify-tag version whatchanged worktree write-tree"
  ).split(" "),
);
/** git's own commands that run programs the user names (`submodule foreach`, `bisect run`, config). */
const GIT_RUNS_PROGRAMS = new Set([
  "config",
  "submodule",
  "bisect",
  "difftool",
  "mergetool",
  "filter-branch",
  "send-email",
  "instaweb",
  "daemon",
]);
/** Options that run a program for these commands only (`git clone -u CMD`). */
const GIT_RISKY_FOR: Record<string, RegExp> = {
  clone: /^(-u|-c.*)$/,
  fetch: /^-u$/,
  pull: /^-u$/,
  "ls-remote": /^-u$/,
  rebase: /^-x.*$/,
  grep: /^-O.*$/,
};
/** git options before the command that take a value (the next word, or attached with `=`). */
export const GIT_GLOBAL_WITH_VALUE: ReadonlySet<string> = new Set([
  "-c",
  "-C",
  "--config-env",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--exec-path",
  "--super-prefix",
  "--list-cmds",
  "--attr-source",
]);
/** git options after the command that run programs, write files or leave the repository. */
const GIT_RISKY =
  /^(--config.*|--exec-path.*|--git-dir.*|--work-tree.*|--upload-pack.*|--receive-pack.*|--exec|--exec=.*|--extcmd.*|--output.*|--ext-diff|--textconv|--open-files-in-pager.*|--tool.*|--template.*)$/;

/**
 * Which words of a command a wildcard must not stand for. Only git has such words today: its
 * global options, options that run programs, and a command name that is not git's own (an alias).
 */
function riskyWords(words: readonly StaticWord[]): boolean[] {
  const risky = words.map(() => false);
  if (words[0] !== "git") return risky;
  let i = 1;
  while (i < words.length && words[i] !== undefined && words[i]!.startsWith("-")) {
    risky[i] = true;
    if (GIT_GLOBAL_WITH_VALUE.has(words[i]!)) risky[++i] = true;
    i++;
  }
  const command = words[i];
  if (
    i < words.length &&
    (command === undefined || !GIT_COMMANDS.has(command) || GIT_RUNS_PROGRAMS.has(command))
  )
    risky[i] = true;
  const forCommand = command === undefined ? undefined : GIT_RISKY_FOR[command];
  for (let k = i + 1; k < words.length; k++) {
    const word = words[k];
    if (word === undefined || GIT_RISKY.test(word) || forCommand?.test(word)) risky[k] = true;
  }
  return risky;
}
