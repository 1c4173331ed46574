// A session's runs as an SSE response, mapped with FIM One's protocol. Frame ids are
// `<journal id>` or `<journal id>.<n>` (the n-th frame one engine event made), so a client that
// comes back with Last-Event-ID gets exactly the frames after it: the run is mapped again from its
// start and the frames it already has are skipped. The stream ends when the session goes idle;
// a client that leaves ends only its stream, never the run. With a `cap`, a stream over the
// session's or the server's stream limit is refused (an HttpError) before anything is written.

import type { ServerResponse } from "node:http";
import type { Redactor } from "@tern/ai";
import type { HostedSession } from "../engine/run-host.js";
import { FimMapper, type SseFrame } from "../mappings/fim-sse.js";
import type { JournalEntry } from "../types.js";
import type { StreamCap } from "./stream-cap.js";

export interface FrameId {
  entry: number;
  index: number;
}

export function parseEventId(text: string | undefined | null): FrameId | undefined {
  if (!text) return undefined;
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return undefined;
  return { entry: Number(match[1]), index: match[2] === undefined ? 0 : Number(match[2]) };
}

export function formatEventId(id: FrameId): string {
  return id.index === 0 ? String(id.entry) : `${id.entry}.${id.index}`;
}

function after(a: FrameId, b: FrameId): boolean {
  return a.entry > b.entry || (a.entry === b.entry && a.index > b.index);
}

export interface StreamOptions {
  /** Starts the run this stream shows (called once the stream listens). */
  startRun?: () => void;
  /** Resume after this frame (Last-Event-ID). */
  after?: FrameId;
  keepAliveMs?: number;
  /** Tells EventSource clients how soon to reconnect (the `retry:` field). */
  retryMs?: number;
  /** Every frame passes it, so no client sees a secret (default: none). */
  redactor?: Redactor;
  /** Counts this stream against the open-stream limits (refused when over one). */
  cap?: StreamCap;
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-store",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

export function streamSession(
  res: ServerResponse,
  session: HostedSession,
  options: StreamOptions = {},
): void {
  const release = options.cap?.acquire(session.id);
  const mapper = new FimMapper();
  const journal = session.journal;
  let replaying = options.startRun === undefined;
  let lastFed = 0;
  /** Entries fed with the id `lastFed` (several events may share one id: see Journal.append). */
  let fedAtLast = new Set<JournalEntry>();
  let ended = false;
  const buffered: JournalEntry[] = [];

  const write = (id: FrameId, frame: SseFrame) => {
    // Ended elsewhere (the server closing) while the run goes on: the rest is not for this client.
    if (res.writableEnded) return;
    const data = JSON.stringify(options.redactor ? options.redactor.json(frame.data) : frame.data);
    res.write(`id: ${formatEventId(id)}\nevent: ${frame.event}\ndata: ${data}\n\n`);
  };
  const finish = () => {
    if (ended) return;
    ended = true;
    cleanup();
    res.end();
  };
  const feed = (entry: JournalEntry) => {
    if (ended || entry.id < lastFed || fedAtLast.has(entry)) return;
    if (entry.id > lastFed) fedAtLast = new Set();
    lastFed = entry.id;
    fedAtLast.add(entry);
    mapper.map(entry.event).forEach((frame, index) => {
      const id = { entry: entry.id, index };
      if (!options.after || after(id, options.after)) write(id, frame);
    });
    // Idle with nothing newer: the session has nothing more to say for now.
    if (entry.event.type === "idle" && entry.id >= journal.lastId) finish();
  };

  res.writeHead(200, SSE_HEADERS);
  res.write(`retry: ${options.retryMs ?? 1000}\n\n`);
  const unsubscribe = journal.subscribe((entry) => {
    if (replaying) buffered.push(entry);
    else feed(entry);
  });
  const keepAlive = setInterval(
    () => res.writableEnded || res.write(": keepalive\n\n"),
    options.keepAliveMs ?? 15_000,
  );
  keepAlive.unref();
  const cleanup = () => {
    release?.();
    unsubscribe();
    clearInterval(keepAlive);
  };
  // The response closes when the client goes (the request's own "close" only means its body was read).
  res.on("close", () => {
    ended = true;
    cleanup();
  });

  if (options.startRun) {
    options.startRun();
    return;
  }
  for (const entry of journal.fromRunOf(options.after?.entry)) feed(entry);
  replaying = false;
  for (const entry of buffered) feed(entry);
  if (!ended && !session.isRunning) finish();
}
