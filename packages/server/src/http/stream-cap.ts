// How many SSE streams may be open at once: at most `perSession` on one session and `total`
// across the server. A stream over either cap is refused before it starts, with a JSON error and
// Retry-After (429 for the session's cap, the client's own doing; 503 for the server's), so a
// client opening streams in a loop cannot take every socket. The connection cap's reserve
// (connection-cap.ts) keeps /healthz and the operator served even then.

import { HttpError } from "./request.js";

/** Streams open at once across the server, by default (half of startServer's connection cap). */
export const DEFAULT_MAX_STREAMS = 512;
/** Streams open at once on one session, by default. */
export const DEFAULT_MAX_SESSION_STREAMS = 8;
/** Seconds a refused client should wait before it tries again. */
const RETRY_AFTER_S = "5";

export interface StreamLimits {
  total: number;
  perSession: number;
}

export class StreamCap {
  private open = 0;
  private readonly bySession = new Map<string, number>();

  constructor(private readonly limits: StreamLimits) {}

  /** Counts a new stream on `sessionId` (throws when over a cap); the function returned uncounts it. */
  acquire(sessionId: string): () => void {
    const mine = this.bySession.get(sessionId) ?? 0;
    if (mine >= this.limits.perSession)
      throw new HttpError(
        429,
        "too_many_streams",
        `session ${sessionId} already has ${mine} open streams (at most ${this.limits.perSession}); close one first`,
        { "retry-after": RETRY_AFTER_S },
      );
    if (this.open >= this.limits.total)
      throw new HttpError(
        503,
        "overloaded",
        `the server has ${this.open} open streams (at most ${this.limits.total}); try again shortly`,
      );
    this.open++;
    this.bySession.set(sessionId, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      const left = (this.bySession.get(sessionId) ?? 1) - 1;
      if (left === 0) this.bySession.delete(sessionId);
      else this.bySession.set(sessionId, left);
    };
  }
}
