import type { AgentEvent, AgentRunResult } from "./types.js";

interface Pending {
  event: AgentEvent;
  ack: (() => void) | undefined;
}

const DONE: IteratorReturnResult<undefined> = { value: undefined, done: true };

/**
 * The loop's event stream, with back-pressure: `push` resolves only once the consumer has
 * finished with the event (it asked for the next one, or stopped iterating). A slow consumer
 * therefore slows the loop and nothing is dropped.
 *
 * - Iterate it (one consumer) and the loop runs in step with you.
 * - Call only `result()` (without iterating first) and the loop runs free; events are kept in
 *   case you iterate later.
 * - Stop iterating early (`break`) and the loop runs on without you; it does not abort (use the
 *   signal for that).
 */
export class AgentEventStream implements AsyncIterable<AgentEvent> {
  private readonly queue: Pending[] = [];
  private head = 0;
  /** Ack of the event the consumer currently holds. */
  private held: (() => void) | undefined;
  private waiter: ((next: IteratorResult<AgentEvent>) => void) | undefined;
  private attached = false;
  private free = false;
  private detached = false;
  private ended = false;
  private resolveResult!: (result: AgentRunResult) => void;
  private readonly finalResult: Promise<AgentRunResult>;

  constructor() {
    this.finalResult = new Promise((resolve) => {
      this.resolveResult = resolve;
    });
  }

  /** Delivers an event; resolves once the consumer is done with it. */
  push(event: AgentEvent): Promise<void> {
    if (this.detached || this.ended) return Promise.resolve();
    if (this.free) {
      this.deliver({ event, ack: undefined });
      return Promise.resolve();
    }
    return new Promise((ack) => this.deliver({ event, ack }));
  }

  /** Ends the stream; `result()` settles with `result`. */
  end(result: AgentRunResult): void {
    if (this.ended) return;
    this.ended = true;
    this.resolveResult(result);
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(DONE);
  }

  /** The run's outcome. Calling it before iterating lets the loop run without a consumer. */
  result(): Promise<AgentRunResult> {
    if (!this.attached) this.runFree();
    return this.finalResult;
  }

  [Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    this.attached = true;
    return {
      next: () => {
        this.release();
        if (this.head < this.queue.length) {
          const pending = this.queue[this.head]!;
          this.queue[this.head++] = undefined as unknown as Pending;
          if (this.head === this.queue.length) {
            this.queue.length = 0;
            this.head = 0;
          }
          this.held = pending.ack;
          return Promise.resolve({ value: pending.event, done: false });
        }
        if (this.ended) return Promise.resolve(DONE);
        return new Promise((resolve) => {
          this.waiter = resolve;
        });
      },
      return: () => {
        this.detach();
        return Promise.resolve(DONE);
      },
    };
  }

  private deliver(pending: Pending): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      this.held = pending.ack;
      waiter({ value: pending.event, done: false });
    } else {
      this.queue.push(pending);
    }
  }

  private release(): void {
    const held = this.held;
    this.held = undefined;
    held?.();
  }

  private runFree(): void {
    this.free = true;
    this.release();
    for (let i = this.head; i < this.queue.length; i++) {
      const pending = this.queue[i]!;
      pending.ack?.();
      pending.ack = undefined;
    }
  }

  private detach(): void {
    this.detached = true;
    this.release();
    for (let i = this.head; i < this.queue.length; i++) this.queue[i]!.ack?.();
    this.queue.length = 0;
    this.head = 0;
  }
}
