// An open session as `list` and the HTTP API show it, read from the session's entries in memory
// (one definition for every run host).

import { type Session, summarizeEntries } from "@tern/session";
import type { SessionInfo } from "../types.js";

export function sessionInfo(
  session: Session,
  live: { running: boolean; model: string; strategy?: string },
): SessionInfo {
  const stats = summarizeEntries(session.entries());
  const times = [
    session.header.created,
    session.entries().at(-1)?.timestamp,
    session.storedEvents().at(-1)?.timestamp,
  ];
  return {
    id: session.id,
    cwd: session.header.cwd,
    title: stats.title,
    created: session.header.created,
    updated: times
      .filter((time): time is string => time !== undefined)
      .sort()
      .at(-1)!,
    messageCount: stats.messageCount,
    live: true,
    ...live,
  };
}
