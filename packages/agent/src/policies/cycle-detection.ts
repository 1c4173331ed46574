// Cycle detection: the same tool with the same arguments (compared as canonical JSON, so key order
// does not matter) called N times in a run means the model is going round in circles; a warning
// asks it to try something else. Counts start fresh with every run.

import { userMessage } from "../messages.js";
import type { LoopPolicy } from "../policy.js";
import { setting } from "./setting.js";
import { realCalls } from "./tool-names.js";

export const DEFAULT_CYCLE_THRESHOLD = 3;

export interface CycleDetectionOptions {
  /** Identical calls that count as a cycle. Default 3. */
  threshold?: number;
}

/** JSON with object keys sorted at every level. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function cycleWarningText(repeats: { name: string; args: string; count: number }[]): string {
  const lines = repeats.map(({ name, args, count }) => `- ${name} ${args} (${count} times)`);
  return [
    "[CYCLE WARNING] You are repeating the same tool call with the same arguments:",
    ...lines,
    "Calling it again will not give a different result. Try a different approach: other arguments, another tool, or answer with what you have.",
  ].join("\n");
}

export function cycleDetection(options: CycleDetectionOptions = {}): LoopPolicy {
  const threshold = setting(options.threshold, DEFAULT_CYCLE_THRESHOLD, 2);
  return {
    name: "cycle_detection",
    start: () => {
      const counts = new Map<string, number>();
      return {
        afterToolBatch: (run, batch) => {
          const repeats: { name: string; args: string; count: number }[] = [];
          for (const call of realCalls(batch.calls)) {
            const args = canonicalJson(call.arguments);
            const key = `${call.name}\u0000${args}`;
            const count = (counts.get(key) ?? 0) + 1;
            counts.set(key, count);
            if (count >= threshold && !repeats.some((r) => r.name === call.name && r.args === args)) {
              repeats.push({ name: call.name, args, count });
            }
          }
          if (repeats.length === 0) return undefined;
          for (const r of repeats) r.count = counts.get(`${r.name}\u0000${r.args}`) ?? r.count;
          return [{ kind: "cycle_warning", message: userMessage(cycleWarningText(repeats), run.now()) }];
        },
      };
    },
  };
}
