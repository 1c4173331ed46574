// Fork, for any SessionStore: a new session whose header points to the source, holding a copy of
// the source's path up to an entry (ids kept) plus the labels of the copied entries. Written once
// here so the file store and database stores fork identically.
import { SessionError } from "./errors.js";
import type { Session } from "./session.js";
import type { ForkOptions, SessionStore } from "./types.js";

export async function forkSession(
  store: SessionStore,
  id: string,
  options: ForkOptions = {},
): Promise<Session> {
  const source = await store.load(id);
  const entryId = options.entryId ?? source.leafId;
  if (entryId !== null && !source.getEntry(entryId))
    throw new SessionError("invalid", `cannot fork ${id}: no entry "${entryId}"`, source.path);
  const fork = await store.create({
    cwd: options.cwd ?? source.header.cwd,
    ...(source.header.settings ? { settings: source.header.settings } : {}),
    parentSession: {
      id,
      ...(source.path ? { path: source.path } : {}),
      ...(entryId !== null ? { entryId } : {}),
    },
  });
  try {
    const copied = source.pathTo(entryId);
    for (const entry of copied) fork.copyEntry(entry);
    // Labels set on other branches still name entries of this path: carry them over.
    for (const entry of copied) {
      const label = source.getLabel(entry.id);
      if (label !== undefined && fork.getLabel(entry.id) !== label) fork.setLabel(entry.id, label);
    }
    await fork.flush();
    return fork;
  } catch (error) {
    await fork.close();
    throw error;
  }
}
