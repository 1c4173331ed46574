// Questions a session is waiting for its client to answer (a tool result, a permission), by
// request id. An abort, a detaching client or the question's own timeout settles them, so no run
// waits forever.

export type Settled<T> = { ok: true; value: T } | { ok: false; reason: string };

interface Waiter {
  settle: (outcome: Settled<unknown>) => void;
}

export class PendingRequests {
  private readonly waiting = new Map<string, Waiter>();

  /**
   * Resolves with the client's answer, or `{ ok: false }` on abort, cancelAll or after `timeout`
   * (its reason given). Never rejects.
   */
  wait<T>(
    requestId: string,
    signal?: AbortSignal,
    timeout?: { ms: number; reason: string },
  ): Promise<Settled<T>> {
    return new Promise((resolve) => {
      const onAbort = () => finish({ ok: false, reason: "aborted" });
      const timer = timeout
        ? setTimeout(() => finish({ ok: false, reason: timeout.reason }), timeout.ms)
        : undefined;
      timer?.unref();
      const finish = (outcome: Settled<unknown>) => {
        if (!this.waiting.has(requestId)) return;
        this.waiting.delete(requestId);
        signal?.removeEventListener("abort", onAbort);
        clearTimeout(timer);
        resolve(outcome as Settled<T>);
      };
      this.waiting.set(requestId, { settle: finish });
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** False when nobody waits for `requestId` (unknown, or answered already). */
  answer(requestId: string, value: unknown): boolean {
    const waiter = this.waiting.get(requestId);
    if (!waiter) return false;
    waiter.settle({ ok: true, value });
    return true;
  }

  has(requestId: string): boolean {
    return this.waiting.has(requestId);
  }

  cancelAll(reason: string): void {
    for (const waiter of [...this.waiting.values()]) waiter.settle({ ok: false, reason });
  }
}
