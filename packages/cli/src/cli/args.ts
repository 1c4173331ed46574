// Command-line parsing on node:util parseArgs, with tern's own one-line errors ("unknown option
// --modle; did you mean --model?") instead of Node's.
import { parseArgs } from "node:util";
import { UsageError } from "./errors.js";

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
}

export type OptionSpecs = Record<string, OptionSpec>;
export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface ParsedArgs {
  values: OptionValues;
  positionals: string[];
}

/** Options of `run`, `chat` and `serve` (and of the sessions commands that start a run). */
export const AGENT_OPTIONS: OptionSpecs = {
  tools: { type: "string" },
  provider: { type: "string", short: "p" },
  model: { type: "string", short: "m" },
  "base-url": { type: "string" },
  "api-key": { type: "string" },
  "tool-mode": { type: "string" },
  "answer-mode": { type: "string" },
  "max-turns": { type: "string" },
  autopilot: { type: "boolean" },
  policy: { type: "string", multiple: true },
  thinking: { type: "string" },
  system: { type: "string" },
  "no-instructions": { type: "boolean" },
  cwd: { type: "string", short: "C" },
  session: { type: "string", short: "s" },
  "allow-tool": { type: "string", multiple: true },
  "deny-tool": { type: "string", multiple: true },
  mode: { type: "string" },
  sandbox: { type: "string" },
  "allow-net": { type: "boolean" },
  "allow-host": { type: "string", multiple: true },
  "deny-host": { type: "string", multiple: true },
  strategy: { type: "string" },
  record: { type: "string" },
  replay: { type: "string" },
  "replay-timing": { type: "string" },
  "replay-miss": { type: "string" },
  // MCP servers (config/mcp-settings.ts).
  "mcp-config": { type: "string", multiple: true },
  "no-mcp": { type: "boolean" },
  "mcp-sandbox": { type: "boolean" },
  store: { type: "string" },
};

/** Options every command takes. */
export const COMMON_OPTIONS: OptionSpecs = {
  debug: { type: "boolean" },
  help: { type: "boolean", short: "h" },
};

/**
 * Parses `argv` against `options`. Throws UsageError with the command's name for unknown options,
 * missing values and too many arguments.
 */
export function parseCommandArgs(
  command: string,
  argv: string[],
  options: OptionSpecs,
  maxPositionals = Number.POSITIVE_INFINITY,
): ParsedArgs {
  const all = { ...COMMON_OPTIONS, ...options };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options: all, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(rewrite(command, error as Error & { code?: string }, all));
  }
  if (parsed.positionals.length > maxPositionals && !parsed.values.help) {
    const extra = parsed.positionals[maxPositionals];
    throw new UsageError(
      `unexpected argument ${JSON.stringify(extra)} for "tern ${command}"; quote a prompt with spaces, or see tern ${command} --help`,
    );
  }
  return { values: parsed.values as OptionValues, positionals: parsed.positionals };
}

function rewrite(command: string, error: Error & { code?: string }, options: OptionSpecs): string {
  const quoted = /'([^']+)'/.exec(error.message)?.[1] ?? "";
  const flag = quoted.split(/[ ,]+/).find((part) => part.startsWith("--")) ?? quoted.split(" ")[0] ?? "";
  const help = `see tern ${command} --help`;
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const suggestion = closest(flag.replace(/^-+/, ""), Object.keys(options));
      const hint = suggestion ? `did you mean --${suggestion}? (${help})` : help;
      return `unknown option ${flag} for "tern ${command}"; ${hint}`;
    }
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      if (/does not take an argument/.test(error.message)) return `option ${flag} takes no value; ${help}`;
      return `option ${flag} needs a value; ${help}`;
    default:
      return `${error.message.split("\n")[0]}; ${help}`;
  }
}

/** The candidate within edit distance 2 of `name` (ties: the one closest in length), if any. */
export function closest(name: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate);
    if (distance > 2) continue;
    const score = distance * 100 + Math.abs(candidate.length - name.length);
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, d[i - 2]![j - 2]! + 1);
      d[i]![j] = value;
    }
  }
  return d[a.length]![b.length]!;
}

export function stringOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

export function listOption(values: OptionValues, name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
}
