// GET /api/sessions/:id/changes: the files the session's tools changed, each with a unified diff
// from its checkpoint to the file now. Read-only; the client names only the session, never a path.

import type { ServerResponse } from "node:http";
import { CheckpointStore, sessionChanges } from "@tern/tools";
import type { Engine } from "../engine/engine.js";
import { sendJson } from "./request.js";

export async function sendChanges(res: ServerResponse, engine: Engine, id: string): Promise<void> {
  // describe() first: a session that is not there, or not under the allowed roots (which list()
  // leaves out), is 404 before any checkpoint is read.
  const session = await engine.describe(id);
  const store = CheckpointStore.forSession(engine.home, id);
  const changes = await sessionChanges(store, { cwd: session.cwd });
  sendJson(res, 200, engine.redactor.json({ changes }));
}
