// Searches file contents with RE2 semantics (re2js, a linear-time engine: no pattern can make a
// search take exponential time), yielding to the event loop as it goes so the process keeps
// answering, and stopping when the call is aborted.

import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { RE2JS } from "re2js";
import { z } from "zod";
import { compileGlob, loadRe2 } from "../glob-match.js";
import { cutLine, formatBytes, looksBinary, plural, SNIFF_BYTES } from "../text.js";
import type { BuiltinTool, GrepDetails, GrepMatch, SearchOptions } from "../types.js";
import { type WalkedFile, walkFiles } from "../walk.js";
import type { Workspace } from "../workspace.js";
import { fsErrorText, toolError, toolText } from "./result.js";

const MAX_LINE_CHARS = 500;
const MAX_CONTEXT = 10;
/** Characters searched between turns given back to the event loop. */
const CHARS_PER_TURN = 256 * 1024;

const parameters = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      "Regular expression (RE2 syntax: like JavaScript's, without backreferences or lookaround) searched for in each line.",
    ),
  path: z
    .string()
    .optional()
    .describe('File or directory to search, relative to the workspace root. Default ".".'),
  glob: z
    .string()
    .optional()
    .describe(
      'Only search files matching this glob, e.g. "*.ts" or "src/**/*.{js,jsx}" (no "/" = file name at any depth).',
    ),
  ignoreCase: z.boolean().optional().describe("Case-insensitive search. Default false."),
  literal: z
    .boolean()
    .optional()
    .describe("Treat the pattern as plain text, not a regular expression. Default false."),
  context: z
    .number()
    .int()
    .min(0)
    .max(MAX_CONTEXT)
    .optional()
    .describe("Lines of context before and after each match. Default 0."),
  limit: z.number().int().min(1).optional().describe("Most matching lines to return."),
});

export function grepTool(
  ws: Workspace,
  options: SearchOptions = {},
): BuiltinTool<z.infer<typeof parameters>, GrepDetails> {
  const maxMatches = options.maxGrepMatches ?? 200;
  const maxFileBytes = options.maxGrepFileBytes ?? 5_000_000;
  return {
    name: "grep",
    label: "Search file contents",
    kind: "read",
    description:
      "Search file contents with a regular expression. Output lines look like `path:line:text` (context lines use `path-line-text`, groups are separated by `--`). " +
      `Files ignored by .gitignore, .git, node_modules, binary files and files over ${formatBytes(maxFileBytes)} are skipped. At most ${maxMatches} matching lines.`,
    parameters,
    async execute(args, { signal }) {
      const { pattern, path: input = ".", glob, ignoreCase = false, literal = false, context = 0 } = args;
      const limit = Math.min(args.limit ?? maxMatches, maxMatches);
      const { RE2JS: Re2 } = await loadRe2();
      let regex: RE2JS;
      try {
        regex = Re2.compile(literal ? Re2.quote(pattern) : pattern, ignoreCase ? Re2.CASE_INSENSITIVE : 0);
      } catch (error) {
        return toolError(
          `Invalid regular expression: ${(error as Error).message} (RE2 syntax: no backreferences or lookaround). Escape special characters or set literal: true.`,
        );
      }
      const resolved = await ws.resolve(input);
      if (!resolved.ok) return toolError(resolved.error);
      const { abs, rel } = resolved;
      let files: AsyncIterable<WalkedFile> | WalkedFile[];
      let base = abs;
      try {
        const info = await stat(abs);
        if (info.isDirectory()) files = walkFiles(ws, abs, { signal });
        else if (!info.isFile()) return toolError(`${rel} is not a regular file or directory.`);
        else if (ws.hidden(abs)) return toolError(`${rel} is hidden from reading by a permission rule.`);
        else {
          files = [{ abs, rel }];
          base = path.dirname(abs);
        }
      } catch (error) {
        return toolError(fsErrorText(error, rel));
      }
      let filter: ((p: string) => boolean) | undefined;
      if (glob) {
        try {
          filter = await compileGlob(glob);
        } catch (error) {
          return toolError(`Invalid glob ${JSON.stringify(glob)}: ${(error as Error).message}`);
        }
      }

      const matches: GrepMatch[] = [];
      const blocks: string[] = [];
      let filesSearched = 0;
      let filesWithMatches = 0;
      let truncated = false;
      for await (const file of files) {
        if (signal.aborted) return toolError("The search was aborted.");
        if (filter && !filter(path.relative(base, file.abs).split(path.sep).join("/"))) continue;
        const lines = await textLines(ws, file.abs, maxFileBytes);
        if (!lines) continue;
        filesSearched++;
        const found = await searchLines(lines, regex, limit - matches.length, signal);
        if (signal.aborted) return toolError("The search was aborted.");
        if (found.lines.length > 0) {
          filesWithMatches++;
          for (const line of found.lines) {
            matches.push({ path: file.rel, line: line + 1, text: cutLine(lines[line]!, MAX_LINE_CHARS) });
          }
          blocks.push(...formatBlocks(file.rel, lines, found.lines, context));
        }
        // With the cap reached, the walk goes on only to learn whether anything was left out.
        if (found.more) {
          truncated = true;
          break;
        }
      }
      // The walk ends quietly when aborted: say so rather than report a short result as complete.
      if (signal.aborted) return toolError("The search was aborted.");
      const details: GrepDetails = {
        pattern,
        path: rel,
        matches,
        filesSearched,
        filesWithMatches,
        truncated,
      };
      if (matches.length === 0) {
        return toolText(
          `No matches for ${JSON.stringify(pattern)} in ${rel} (${plural(filesSearched, "file")} searched).`,
          details,
        );
      }
      let text = blocks.join(context > 0 ? "\n--\n" : "\n");
      if (truncated)
        text += `\n\n[Stopped at ${limit} matching lines. Narrow the pattern, path or glob to see the rest.]`;
      return toolText(text, details);
    },
  };
}

/** The file's lines, or undefined for binary, oversized, unreadable or hard-linked files. */
async function textLines(ws: Workspace, abs: string, maxBytes: number): Promise<string[] | undefined> {
  try {
    const info = await stat(abs);
    if (info.size > maxBytes || ws.checkLinks(info, abs) !== undefined) return undefined;
    const bytes = await readFile(abs);
    if (looksBinary(bytes.subarray(0, SNIFF_BYTES))) return undefined;
    const lines = bytes.toString("utf8").split(/\r?\n/);
    if (lines.at(-1) === "") lines.pop();
    return lines;
  } catch {
    return undefined;
  }
}

/**
 * Indexes of matching lines, at most `room`; `more` says there were further matches. Gives the
 * event loop a turn every CHARS_PER_TURN characters, and stops early when aborted.
 */
async function searchLines(
  lines: readonly string[],
  regex: RE2JS,
  room: number,
  signal: AbortSignal,
): Promise<{ lines: number[]; more: boolean }> {
  const found: number[] = [];
  let sinceTurn = 0;
  for (let i = 0; i < lines.length; i++) {
    sinceTurn += lines[i]!.length;
    if (sinceTurn >= CHARS_PER_TURN) {
      sinceTurn = 0;
      await nextTurn();
      if (signal.aborted) break;
    }
    if (!regex.test(lines[i]!)) continue;
    if (found.length === room) return { lines: found, more: true };
    found.push(i);
  }
  return { lines: found, more: false };
}

/** ripgrep-style blocks: matches as `path:n:text`, context as `path-n-text`, one block per run of nearby lines. */
function formatBlocks(
  rel: string,
  lines: readonly string[],
  hits: readonly number[],
  context: number,
): string[] {
  const isHit = new Set(hits);
  const blocks: string[] = [];
  let current: string[] = [];
  let lastShown = -2;
  for (const hit of hits) {
    const from = Math.max(0, hit - context, lastShown + 1);
    if (from > lastShown + 1 && current.length > 0) {
      blocks.push(current.join("\n"));
      current = [];
    }
    const to = Math.min(lines.length - 1, hit + context);
    for (let i = from; i <= to; i++) {
      const sep = isHit.has(i) ? ":" : "-";
      current.push(`${rel}${sep}${i + 1}${sep}${cutLine(lines[i]!, MAX_LINE_CHARS)}`);
    }
    lastShown = Math.max(lastShown, to);
  }
  if (current.length > 0) blocks.push(current.join("\n"));
  return blocks;
}
