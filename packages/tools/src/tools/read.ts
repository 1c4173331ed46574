import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import { z } from "zod";
import { isBinaryFile } from "../files.js";
import { cutLine, formatBytes } from "../text.js";
import type { BuiltinTool, ReadDetails, ReadOptions } from "../types.js";
import type { Workspace } from "../workspace.js";
import { fsErrorText, toolError, toolText } from "./result.js";

// Files up to this size are scanned to the end so the result can say how many lines there are.
const COUNT_ALL_LINES_BELOW = 16 * 1024 * 1024;

const parameters = z.object({
  path: z
    .string()
    .describe("File to read, relative to the workspace root (absolute paths inside it work too)."),
  offset: z.number().int().min(1).optional().describe("First line to show, 1-based. Default 1."),
  limit: z.number().int().min(1).optional().describe("Most lines to show."),
});

export function readTool(
  ws: Workspace,
  options: ReadOptions = {},
): BuiltinTool<z.infer<typeof parameters>, ReadDetails> {
  const maxLines = options.maxLines ?? 2000;
  const maxBytes = options.maxBytes ?? 50_000;
  const maxLineLength = options.maxLineLength ?? 2000;
  return {
    name: "read",
    label: "Read file",
    kind: "read",
    description:
      `Read a text file from the workspace. Output has line numbers ("   12\\tcode"); the numbers are not part of the file. ` +
      `Shows at most ${maxLines} lines or ${formatBytes(maxBytes)} per call; use offset and limit to read other parts of long files. ` +
      `Binary files are detected and not shown. Use ls or glob to find files first.`,
    parameters,
    async execute({ path: input, offset = 1, limit }, { signal }) {
      const resolved = await ws.resolve(input);
      if (!resolved.ok) return toolError(resolved.error);
      const { abs, rel } = resolved;
      let size: number;
      try {
        const info = await stat(abs);
        if (info.isDirectory()) return toolError(`${rel} is a directory, not a file. Use ls to list it.`);
        if (!info.isFile())
          return toolError(`${rel} is not a regular file (a device, socket or pipe); it is not read.`);
        const linked = ws.checkLinks(info, rel);
        if (linked) return toolError(linked);
        size = info.size;
      } catch (error) {
        return toolError(fsErrorText(error, rel));
      }

      const details: ReadDetails = {
        path: rel,
        startLine: 0,
        endLine: 0,
        truncated: false,
        binary: false,
        sizeBytes: size,
      };
      try {
        if (await isBinaryFile(abs)) {
          details.binary = true;
          return toolText(
            `${rel} is a binary file (${formatBytes(size)}); its content is not shown. Use bash (for example \`file\` or \`xxd | head\`) to inspect it.`,
            details,
          );
        }
      } catch (error) {
        return toolError(fsErrorText(error, rel));
      }

      const wanted = Math.min(limit ?? maxLines, maxLines);
      const shown: string[] = [];
      let shownBytes = 0;
      let lineNo = 0;
      let cappedByBytes = false;
      let complete = true;
      const fileStream = createReadStream(abs, { encoding: "utf8" });
      const lines = createInterface({
        input: fileStream,
        crlfDelay: Infinity,
      });
      try {
        for await (const line of lines) {
          lineNo++;
          if (signal.aborted) return toolError("Reading was aborted.");
          if (lineNo < offset) continue;
          const windowFull = shown.length >= wanted || cappedByBytes;
          if (!windowFull) {
            const text = `${String(lineNo).padStart(6)}\t${cutLine(line, maxLineLength)}`;
            const bytes = Buffer.byteLength(text) + 1;
            if (shown.length > 0 && shownBytes + bytes > maxBytes) {
              cappedByBytes = true;
            } else {
              shown.push(text);
              shownBytes += bytes;
              continue;
            }
          }
          if (size > COUNT_ALL_LINES_BELOW) {
            complete = false;
            break;
          }
        }
      } catch (error) {
        return toolError(fsErrorText(error, rel));
      } finally {
        lines.close();
        fileStream.destroy(); // stopping early must not leak the file descriptor
      }

      if (complete) details.totalLines = lineNo;
      if (lineNo === 0) return toolText(`${rel} is empty.`, details);
      if (shown.length === 0) {
        return toolError(`offset ${offset} is past the end of ${rel}, which has ${lineNo} lines.`, details);
      }
      details.startLine = offset;
      details.endLine = offset + shown.length - 1;
      const more = !complete || details.endLine < lineNo;
      details.truncated = more;
      let text = shown.join("\n");
      if (more) {
        const of = complete ? ` of ${lineNo}` : "";
        const range = `lines ${details.startLine}-${details.endLine}${of}`;
        const next = `Use offset=${details.endLine + 1} to continue.`;
        if (cappedByBytes) text += `\n\n[Truncated at ${formatBytes(maxBytes)}: showing ${range}. ${next}]`;
        else if (shown.length === maxLines && (limit ?? Infinity) > maxLines) {
          text += `\n\n[Truncated at ${maxLines} lines: showing ${range}. ${next}]`;
        } else text += `\n\n[Showing ${range}. ${next}]`;
      }
      return toolText(text, details);
    },
  };
}
