// Stands in for src/delay.js (through vi.mock) in tests that check which wait the retry layer
// chose: each requested wait is recorded and announced, then waited for real. Tests assert on the
// chosen wait instead of on how long the run took.
import { vi } from "vitest";
import type * as DelayModule from "../../src/delay.js";

const actual = await vi.importActual<typeof DelayModule>("../../src/delay.js");

/** Every wait requested so far, in milliseconds, in order. */
export const waits: number[] = [];
const listeners = new Set<(ms: number) => void>();

/** Calls `listener` with each wait as it starts; returns a function that stops it. */
export function onWait(listener: (ms: number) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function delay(ms: number, signal?: AbortSignal): Promise<boolean> {
  waits.push(ms);
  for (const listener of listeners) listener(ms);
  return actual.delay(ms, signal);
}
