// What the server counts for one lane (one runtime in one phase of one workload): requests,
// prompt tokens, completed runs with the digest of their tool results, rejected requests, the
// latency workload's send times, and the concurrency workload's answer barrier.

import { createHash } from "node:crypto";

export interface LaneReport {
  requests: number;
  /** Requests that were not loop turns (forced structured calls such as tool selection). */
  structuredRequests: number;
  promptTokens: number;
  completionTokens: number;
  /** Tools offered, summed over requests. */
  toolsOffered: number;
  completedRuns: number;
  rejected: number;
  rejectSamples: string[];
  /** sha1 over every completed run's id and tool-result digest, sorted: equal lanes did equal work. */
  digest: string;
  /** Final-answer requests held at the barrier when the report was taken. */
  atBarrier: number;
}

export class Lane {
  requests = 0;
  structuredRequests = 0;
  promptTokens = 0;
  completionTokens = 0;
  toolsOffered = 0;
  rejected = 0;
  readonly rejectSamples: string[] = [];
  readonly runs = new Map<string, string>();
  readonly sendTimes = new Map<string, bigint[]>();
  atBarrier = 0;
  private released = false;
  private waiters: (() => void)[] = [];

  reject(message: string): void {
    this.rejected++;
    if (this.rejectSamples.length < 5) this.rejectSamples.push(message);
  }

  /** Resolves when the client releases the lane, or after `timeoutMs` whatever happens. */
  barrier(timeoutMs: number): Promise<void> {
    if (this.released) return Promise.resolve();
    this.atBarrier++;
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  release(): void {
    this.released = true;
    for (const wake of this.waiters.splice(0)) wake();
  }

  report(): LaneReport {
    const entries = [...this.runs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, d]) => `${id}:${d}`);
    return {
      requests: this.requests,
      structuredRequests: this.structuredRequests,
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
      toolsOffered: this.toolsOffered,
      completedRuns: this.runs.size,
      rejected: this.rejected,
      rejectSamples: this.rejectSamples,
      digest: createHash("sha1").update(entries.join("\n")).digest("hex").slice(0, 12),
      atBarrier: this.atBarrier,
    };
  }
}
