import type { AssistantEvent, AssistantMessage } from "./types.js";

/**
 * A single-consumer push stream: producers `push` events, one consumer iterates them, and
 * `result()` settles with the final value whether or not anyone iterates.
 */
export class EventStream<TEvent, TResult> implements AsyncIterable<TEvent> {
  private readonly queue: TEvent[] = [];
  private waiting: ((next: IteratorResult<TEvent>) => void) | undefined;
  private ended = false;
  private resolveResult!: (value: TResult) => void;
  private readonly finalResult: Promise<TResult>;

  constructor(
    private readonly isTerminal: (event: TEvent) => boolean,
    private readonly resultOf: (event: TEvent) => TResult,
  ) {
    this.finalResult = new Promise((resolve) => {
      this.resolveResult = resolve;
    });
  }

  push(event: TEvent): void {
    if (this.ended) return;
    if (this.isTerminal(event)) {
      this.ended = true;
      this.resolveResult(this.resultOf(event));
    }
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
  }

  /** Ends the stream without a terminal event; `result()` then settles with `value`. */
  end(value: TResult): void {
    if (this.ended) return;
    this.ended = true;
    this.resolveResult(value);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  get isEnded(): boolean {
    return this.ended;
  }

  result(): Promise<TResult> {
    return this.finalResult;
  }

  [Symbol.asyncIterator](): AsyncIterator<TEvent> {
    return {
      next: () => {
        const event = this.queue.shift();
        if (event !== undefined) return Promise.resolve({ value: event, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
    };
  }
}

export class AssistantMessageEventStream extends EventStream<AssistantEvent, AssistantMessage> {
  constructor() {
    super(
      (event) => event.type === "done" || event.type === "error",
      (event) => {
        if (event.type === "done") return event.message;
        if (event.type === "error") return event.error;
        throw new Error(`not a terminal event: ${event.type}`);
      },
    );
  }
}
