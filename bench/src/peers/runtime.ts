// What every runtime adapter provides: set up once per process (model pointed at the server,
// the script's tools in the runtime's own tool shape), then one streamed run per prompt.

import type { ToolDef } from "./tools.js";

export interface RuntimeSetup {
  /** `http://127.0.0.1:<port>/<lane>/v1` */
  baseUrl: string;
  system: string;
  tools: ToolDef[];
  /** Model calls one run needs; adapters with a step or turn limit set it a little above. */
  turns: number;
}

export interface RunHooks {
  /** Called for every streamed piece of answer text, as the consumer would see it. */
  onText(delta: string): void;
}

/** One run from prompt to final answer. Rejects when the runtime reports a failure. */
export type RunFn = (prompt: string, hooks: RunHooks) => Promise<{ answer: string }>;

export interface RuntimeAdapter {
  setup(options: RuntimeSetup): Promise<RunFn>;
}

export const STEP_HEADROOM = 5;
export const BENCH_MODEL = "bench-model";
export const BENCH_KEY = "bench-key";
