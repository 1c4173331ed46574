// --tool-mode, --answer-mode, --autopilot and --max-turns as the agent's ReAct policy options
// (@tern/agent's reactPolicies: tool mode, iteration limit, tool selection, reflection, cycle
// detection, completion checklist, interrupts, autopilot, answer synthesis).
import type { AgentOptions, ReactOptions } from "@tern/agent";
import type { AgentSettings } from "../config/settings.js";

type LoopSettings = Pick<AgentSettings, "toolMode" | "answerMode" | "autopilot" | "maxTurns">;

export function reactOptions(settings: LoopSettings, extra: Partial<ReactOptions> = {}): ReactOptions {
  return {
    toolMode: settings.toolMode,
    answerMode: settings.answerMode,
    maxIterations: settings.maxTurns,
    autopilot: settings.autopilot,
    ...extra,
  };
}

export function loopOptions(
  settings: LoopSettings,
  extra: Partial<ReactOptions> = {},
): Partial<AgentOptions> {
  return { react: reactOptions(settings, extra) };
}
