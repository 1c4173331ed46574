// The files a session changed (GET /api/sessions/:id/changes) as page data: each file's path,
// status and unified diff read without trusting the payload, and the diff cut into lines the
// panel colours by their marker. The file headers (`---`/`+++`) are dropped: the path is shown.

import { type Data, str } from "./data.js";

export type ChangeStatus = "added" | "modified" | "deleted";

export interface DiffLine {
  kind: "add" | "del" | "hunk" | "context";
  text: string;
}

export interface FileChange {
  path: string;
  status: ChangeStatus;
  lines: DiffLine[];
  /** Why there is no diff (binary, too large, unreadable), from the server. */
  note?: string;
}

const STATUSES = new Set<string>(["added", "modified", "deleted"]);

/** The route's `changes`; an entry without a path or with an unknown status is left out. */
export function fileChanges(body: unknown): FileChange[] {
  const changes = (body as Data | null)?.changes;
  if (!Array.isArray(changes)) return [];
  return changes.flatMap((raw: Data | null) => {
    const path = str(raw?.path);
    const status = str(raw?.status);
    if (!path || !STATUSES.has(status)) return [];
    const note = str(raw?.note);
    return [
      { path, status: status as ChangeStatus, lines: diffLines(str(raw?.diff)), ...(note ? { note } : {}) },
    ];
  });
}

/** A unified diff's lines from its first hunk on, each kept verbatim with its marker. */
export function diffLines(diff: string): DiffLine[] {
  const lines = diff.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const start = lines.findIndex((line) => line.startsWith("@@"));
  if (start === -1) return [];
  return lines.slice(start).map((text) => ({ kind: kindOf(text), text }));
}

function kindOf(line: string): DiffLine["kind"] {
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "context";
}
