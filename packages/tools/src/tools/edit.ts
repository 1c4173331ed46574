import { readFile, stat, writeFile } from "node:fs/promises";
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { z } from "zod";
import { looksBinary, plural, SNIFF_BYTES } from "../text.js";
import type { BuiltinTool, EditDetails } from "../types.js";
import type { Workspace } from "../workspace.js";
import { fsErrorText, toolError, toolText } from "./result.js";

// The diff shown to the model is capped; details keep the whole diff.
const MAX_DIFF_CHARS = 20_000;
// Myers' diff costs lines × edits: a 5,000-line rewrite took seconds on the event loop. Past this
// many changed lines the diff is skipped and only counted.
const MAX_DIFF_EDITS = 1_000;

const replacement = z.object({
  oldText: z
    .string()
    .describe("Exact text to replace, including whitespace and indentation. Must occur exactly once."),
  newText: z.string().describe("The text that replaces it."),
});

const parameters = z.object({
  path: z.string().describe("File to edit, relative to the workspace root."),
  edits: z
    .array(replacement)
    .min(1)
    .describe("Replacements, each matched against the file as it is now; they must not overlap."),
});

type Params = z.infer<typeof parameters>;
type Replacement = Params["edits"][number];

interface Located {
  index: number;
  start: number;
  oldText: string;
  newText: string;
}

export function editTool(ws: Workspace): BuiltinTool<Params, EditDetails> {
  return {
    name: "edit",
    label: "Edit file",
    kind: "write",
    description:
      "Edit a file by exact text replacement. Each edit's oldText must appear exactly once in the current file " +
      "(copy it from read output without the line numbers, with enough surrounding lines to be unique). " +
      "Several edits can be sent in one call; they are all applied or, if any fails, none is. Returns a unified diff.",
    parameters,
    // Models often send one replacement at the top level, or the older snake_case names.
    prepareArguments(args) {
      if (args.edits !== undefined) return args;
      const oldText = args.oldText ?? args.old_string ?? args.old_text;
      const newText = args.newText ?? args.new_string ?? args.new_text;
      if (oldText === undefined && newText === undefined) return args;
      return { path: args.path, edits: [{ oldText, newText }] };
    },
    async execute({ path: input, edits }) {
      const resolved = await ws.resolve(input);
      if (!resolved.ok) return toolError(resolved.error);
      const { abs, rel } = resolved;
      let before: string;
      try {
        const info = await stat(abs);
        if (info.isDirectory()) return toolError(`${rel} is a directory, not a file.`);
        if (!info.isFile()) return toolError(`${rel} is not a regular file.`);
        const linked = ws.checkLinks(info, rel);
        if (linked) return toolError(linked);
        const bytes = await readFile(abs);
        if (looksBinary(bytes.subarray(0, SNIFF_BYTES)))
          return toolError(`${rel} is a binary file; edit only changes text files.`);
        before = bytes.toString("utf8");
      } catch (error) {
        return toolError(`${fsErrorText(error, rel)} Use write to create a new file.`);
      }

      const located = locate(before, edits, rel);
      if (!located.ok)
        return toolError(`${located.errors.join("\n")}\nNo edit was applied; ${rel} is unchanged.`);
      let after = before;
      for (const edit of [...located.edits].sort((a, b) => b.start - a.start)) {
        after = after.slice(0, edit.start) + edit.newText + after.slice(edit.start + edit.oldText.length);
      }
      try {
        await writeFile(abs, after, "utf8");
      } catch (error) {
        return toolError(fsErrorText(error, rel));
      }

      const diff = createTwoFilesPatch(rel, rel, before, after, undefined, undefined, {
        context: 3,
        headerOptions: FILE_HEADERS_ONLY,
        maxEditLength: MAX_DIFF_EDITS,
      });
      if (diff === undefined) {
        const counted = countedStats(before, located.edits);
        const details: EditDetails = { path: rel, replacements: edits.length, diff: "", ...counted };
        return toolText(
          `Edited ${rel}: ${plural(edits.length, "replacement")} (-${counted.linesRemoved} +${counted.linesAdded} lines; the diff is too large to show). Read the file to check the result.`,
          details,
        );
      }
      const details: EditDetails = { path: rel, replacements: edits.length, diff, ...diffStats(diff) };
      const shown =
        diff.length > MAX_DIFF_CHARS ? `${diff.slice(0, MAX_DIFF_CHARS)}\n[diff truncated]` : diff;
      return toolText(`Edited ${rel}: ${plural(edits.length, "replacement")}.\n\n${shown}`, details);
    },
  };
}

function locate(
  content: string,
  edits: readonly Replacement[],
  rel: string,
): { ok: true; edits: Located[] } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const found: Located[] = [];
  const name = (i: number) => (edits.length === 1 ? "The edit" : `Edit ${i + 1} of ${edits.length}`);
  edits.forEach((edit, i) => {
    if (edit.oldText === "") {
      errors.push(`${name(i)}: oldText is empty. To create or replace a whole file use write.`);
      return;
    }
    if (edit.oldText === edit.newText) {
      errors.push(`${name(i)}: oldText and newText are identical, so it would change nothing.`);
      return;
    }
    let { oldText, newText } = edit;
    let starts = occurrences(content, oldText);
    // A file with Windows line endings still matches text the model sent with "\n".
    if (starts.length === 0 && content.includes("\r\n") && /(?<!\r)\n/.test(oldText)) {
      oldText = oldText.replace(/\r?\n/g, "\r\n");
      newText = newText.replace(/\r?\n/g, "\r\n");
      starts = occurrences(content, oldText);
    }
    if (starts.length === 0) {
      errors.push(
        `${name(i)}: oldText was not found in ${rel}. It must match exactly, including whitespace; read the file again and copy the text.`,
      );
    } else if (starts.length > 1) {
      const lines = starts.slice(0, 10).map((start) => lineAt(content, start));
      errors.push(
        `${name(i)}: oldText matches ${starts.length} times in ${rel} (lines ${lines.join(", ")}${starts.length > 10 ? ", …" : ""}). Include more surrounding lines so it matches exactly once.`,
      );
    } else {
      found.push({ index: i, start: starts[0]!, oldText, newText });
    }
  });
  const ordered = [...found].sort((a, b) => a.start - b.start);
  for (let k = 1; k < ordered.length; k++) {
    const prev = ordered[k - 1]!;
    const next = ordered[k]!;
    if (prev.start + prev.oldText.length > next.start) {
      errors.push(
        `Edits ${Math.min(prev.index, next.index) + 1} and ${Math.max(prev.index, next.index) + 1} overlap; merge them into one edit.`,
      );
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, edits: found };
}

/** Start offsets of every occurrence, overlapping ones included (so "aa" in "aaa" is ambiguous). */
function occurrences(content: string, needle: string): number[] {
  const starts: number[] = [];
  for (let at = content.indexOf(needle); at !== -1; at = content.indexOf(needle, at + 1)) starts.push(at);
  return starts;
}

function lineAt(content: string, offset: number): number {
  let line = 1;
  for (let i = content.indexOf("\n"); i !== -1 && i < offset; i = content.indexOf("\n", i + 1)) line++;
  return line;
}

/** Line counts of the replacements themselves, for edits too large to diff. */
function countedStats(
  before: string,
  edits: readonly Located[],
): Pick<EditDetails, "linesAdded" | "linesRemoved" | "firstChangedLine"> {
  const lines = (text: string) => (text === "" ? 0 : text.split("\n").length);
  const first = Math.min(...edits.map((edit) => edit.start));
  return {
    linesAdded: edits.reduce((sum, edit) => sum + lines(edit.newText), 0),
    linesRemoved: edits.reduce((sum, edit) => sum + lines(edit.oldText), 0),
    firstChangedLine: lineAt(before, first),
  };
}

function diffStats(diff: string): Pick<EditDetails, "linesAdded" | "linesRemoved" | "firstChangedLine"> {
  let linesAdded = 0;
  let linesRemoved = 0;
  let firstChangedLine = 0;
  let newLine = 0;
  let inHunks = false;
  for (const line of diff.split("\n")) {
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)/.exec(line);
    if (hunk) {
      newLine = Number(hunk[1]);
      inHunks = true;
      continue;
    }
    if (!inHunks) continue; // the ---/+++ file headers
    if (line.startsWith("+")) {
      linesAdded++;
      if (firstChangedLine === 0) firstChangedLine = newLine;
      newLine++;
    } else if (line.startsWith("-")) {
      linesRemoved++;
      if (firstChangedLine === 0) firstChangedLine = newLine;
    } else if (line.startsWith(" ")) {
      newLine++;
    }
  }
  return { linesAdded, linesRemoved, firstChangedLine };
}
