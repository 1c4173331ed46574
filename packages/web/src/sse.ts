// A session's SSE stream read with fetch (EventSource cannot send an Authorization header, and a
// token in the URL would end up in logs and history). The framing is eventsource-parser's. A
// stream that drops mid-run is picked up again from GET /events with Last-Event-ID, so the caller
// sees every frame once; it ends when the server ends it (the session went idle) or on stop().

import { createParser } from "eventsource-parser";
import { ApiError, call, headers, sessionPath } from "./api.js";

export interface Frame {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

export interface StreamHandlers {
  frame(frame: Frame): void;
  /** The stream ended for good: the run is over (or nothing ran), stop() was called, or it failed. */
  end(error?: Error): void;
}

/** How long to wait before picking a dropped stream up again. */
const RECONNECT_MS = 1000;
/** Give up after this many failed reconnections in a row. */
const MAX_RETRIES = 30;

export interface SessionStream {
  stop(): void;
  /** Settles once `end` has been called. */
  ended: Promise<void>;
}

/**
 * Follows a run: `first` opens it (POST /messages), or, without it, GET /events from `lastId`;
 * after a drop it goes on with GET /events from the last frame seen.
 */
export function follow(
  sessionId: string,
  first: ((signal: AbortSignal) => Promise<Response>) | undefined,
  lastId: string | undefined,
  on: StreamHandlers,
): SessionStream {
  const stopper = new AbortController();
  let last = lastId;
  const run = async () => {
    let failures = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        const res =
          attempt === 0 && first
            ? await first(stopper.signal)
            : await openEvents(sessionId, last, stopper.signal);
        if (res.status === 204 || !res.body) return on.end();
        const parser = createParser({
          onEvent(message) {
            if (message.id) last = message.id;
            failures = 0;
            on.frame({
              id: message.id ?? "",
              event: message.event ?? "message",
              data: JSON.parse(message.data),
            });
          },
        });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
        // The server ends the stream when the session goes idle: the run is over.
        return on.end();
      } catch (error) {
        if (stopper.signal.aborted) return on.end();
        // An API refusal (401, 404, 409...) is final; a network failure is worth another try.
        if (error instanceof ApiError || ++failures > MAX_RETRIES) return on.end(error as Error);
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
      }
    }
  };
  return { stop: () => stopper.abort(), ended: run() };
}

async function openEvents(
  sessionId: string,
  last: string | undefined,
  signal: AbortSignal,
): Promise<Response> {
  const path = sessionPath(sessionId, "/events");
  const res = await fetch(path, { headers: headers(last ? { "last-event-id": last } : {}), signal });
  if (res.ok) return res;
  // call() turns the refusal into the right error (a 401 asks for the token).
  return call("GET", path, undefined, signal);
}
