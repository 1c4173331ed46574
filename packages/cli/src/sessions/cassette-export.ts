// `tern sessions export ID --cassette`: the cassette a session's model calls were recorded to
// (or replayed from), for a bug report. The session keeps the cassette's path, not a copy, so the
// file is read and checked here; a moved or broken cassette is a usage error naming it.
import { readFileSync } from "node:fs";
import { readCassette } from "@tern/ai";
import type { Session } from "@tern/session";
import { UsageError } from "../cli/errors.js";
import { CASSETTE_ENTRY, type CassetteEntryData } from "../runtime/cassette-entry.js";

export function sessionCassette(session: Session): string {
  const entry = session
    .entries()
    .findLast((item) => item.type === "custom" && item.customType === CASSETTE_ENTRY);
  const path = entry?.type === "custom" ? (entry.data as CassetteEntryData | undefined)?.path : undefined;
  if (path === undefined)
    throw new UsageError(
      `session ${session.id.slice(0, 8)} has no cassette: record one with tern run --record FILE (or chat or serve --record FILE)`,
    );
  try {
    readCassette(path);
  } catch (error) {
    throw new UsageError(`session ${session.id.slice(0, 8)}'s ${(error as Error).message}`);
  }
  return readFileSync(path, "utf8");
}
