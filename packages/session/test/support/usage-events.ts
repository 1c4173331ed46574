// `model_call_end` events as the runtime persists them, for the usage index's tests.
import type { PersistedEvent } from "../../src/types.js";

export function callEnd(
  model: string,
  counts: { input: number; output: number; cost: number },
  purpose = "turn",
): PersistedEvent {
  return {
    type: "model_call_end",
    provider: "p",
    model,
    purpose,
    usage: {
      input: counts.input,
      output: counts.output,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: counts.input + counts.output,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: counts.cost },
    },
  } as unknown as PersistedEvent;
}
