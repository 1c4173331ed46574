// Secrets never reach a session file. Redaction runs on each serialised line just before it is
// written: one pass over the text covers every field of every entry and event, wherever the secret
// hides (a message, a tool argument, an error string, a header map in an event). Literal secrets
// (and their encodings) are @tern/ai's Redactor; this file adds what only a line shows: known key
// shapes, credential schemes and key-like fields.

import { REDACTED, Redactor } from "@tern/ai";

export { REDACTED };

/**
 * Start of a word in serialised JSON: the start, a non-alphanumeric character, or an escape such
 * as "\\n" (so a key at the start of a line of tool output is still a word start).
 */
const START = String.raw`(?<=^|[^A-Za-z0-9]|\\[nrtbf])`;
const word = (source: string, flags = "g") => new RegExp(`${START}(?:${source})`, flags);

/** Key shapes of common providers. Each needs enough characters after its prefix to not hit prose. */
const KEY_SHAPES = word(
  [
    "sk-[A-Za-z0-9_-]{16,}", // OpenAI (sk-, sk-proj-), Anthropic (sk-ant-), DeepSeek, OpenRouter (sk-or-)
    "gsk_[A-Za-z0-9]{20,}", // Groq
    "xai-[A-Za-z0-9]{20,}", // xAI
    "AIza[0-9A-Za-z_-]{30,}", // Google
    "(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}", // GitHub tokens
    "github_pat_[A-Za-z0-9_]{30,}",
    "xox[abprs]-[A-Za-z0-9-]{10,}", // Slack
    "AKIA[0-9A-Z]{16}(?![0-9A-Z])", // AWS access key id
    "hf_[A-Za-z0-9]{30,}", // Hugging Face
  ]
    .map((shape) => `(?:${shape})`)
    .join("|"),
);

/**
 * "Bearer <token>" / "Basic <token>" anywhere (headers copied into errors, curl lines in tool
 * output). The token must hold a digit or be long, so prose such as "Basic authentication" stays.
 */
const AUTH_SCHEME = word(
  String.raw`(Bearer|Basic)(\s+|\\t)(?:(?=[A-Za-z._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{8,}|[A-Za-z0-9._~+/=-]{20,})`,
  "gi",
);

/** Header-style "name: value" / "NAME=value" in text (HTTP dumps, curl lines, `env` output). */
const KEY_ASSIGNMENT = word(
  String.raw`((?:x-)?api[-_]?key|x-goog-api-key|authorization)(\s*[:=]\s*)(?!Bearer\b|Basic\b|\[REDACTED\])[A-Za-z0-9._~+/=-]{6,}`,
  "gi",
);

/** JSON fields whose string value is a credential, whatever it looks like. */
const SECRET_FIELD =
  /"((?:x-)?api[-_]?key|x-goog-api-key|(?:proxy-)?authorization|access[-_]?token|refresh[-_]?token|client[-_]?secret|secret[-_]?key|password)"(\s*:\s*)"(?:[^"\\]|\\.)*"/gi;

/** One cheap scan that some pattern above needs to match first; most lines have none of these. */
const MAYBE_SECRET =
  /sk-|gsk_|xai-|AIza|gh[pousr]_|github_pat_|xox[abprs]-|AKIA|hf_|bearer|basic|api[-_]?key|authorization|access[-_]?token|refresh[-_]?token|client[-_]?secret|secret[-_]?key|password/i;

/** Environment variables whose values are credentials. */
const SECRET_VARIABLE = /(API_KEY|_TOKEN|_SECRET|_PASSWORD|_ACCESS_KEY)$/i;

/** The values of key-like environment variables (so a key of any shape in OPENAI_API_KEY is caught). */
export function secretsInEnvironment(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([name, value]) => value && SECRET_VARIABLE.test(name))
    .map(([, value]) => value as string);
}

/** Known key shapes, credential schemes, headers and JSON fields in a serialised line, replaced. */
export function redactKeyShapes(line: string): string {
  if (!MAYBE_SECRET.test(line)) return line;
  let out = line.replace(KEY_SHAPES, REDACTED);
  out = out.replace(AUTH_SCHEME, (_match, scheme: string, space: string) => `${scheme}${space}${REDACTED}`);
  out = out.replace(KEY_ASSIGNMENT, (_match, name: string, sep: string) => `${name}${sep}${REDACTED}`);
  return out.replace(SECRET_FIELD, (_match, name: string, colon: string) => `"${name}"${colon}"${REDACTED}"`);
}

export type LineRedactor = (line: string) => string;

/**
 * A redactor for serialised JSON lines: the literal values of `secrets` (every spelling the
 * shared redactor knows) and of key-like environment variables, then the known shapes.
 * Replacements never add quotes or backslashes, so the line stays valid JSON.
 */
export function createRedactor(
  secrets: readonly string[] | Redactor = [],
  env: NodeJS.ProcessEnv = process.env,
): LineRedactor {
  const literal = secrets instanceof Redactor ? secrets : new Redactor(secrets);
  literal.add(secretsInEnvironment(env));
  return (line) => redactKeyShapes(literal.text(line));
}
