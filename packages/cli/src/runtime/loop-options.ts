// The run's loop options as the agent's ReAct policy options (@tern/agent's reactPolicies: tool
// mode, iteration limit, tool selection, reflection, cycle detection, completion checklist,
// interrupts, autopilot, answer synthesis): --tool-mode and --max-turns, and the policy switches
// (--policy, config.json "policies", REACT_* variables, --autopilot, --answer-mode).
import type { AgentOptions, ReactOptions } from "@tern/agent";
import { policyOptions } from "../config/policy-settings.js";
import type { AgentSettings } from "../config/settings.js";

type LoopSettings = Pick<AgentSettings, "toolMode" | "maxTurns" | "policies">;

export function reactOptions(settings: LoopSettings, extra: Partial<ReactOptions> = {}): ReactOptions {
  return {
    toolMode: settings.toolMode,
    maxIterations: settings.maxTurns,
    ...policyOptions(settings.policies),
    ...extra,
  };
}

export function loopOptions(
  settings: LoopSettings,
  extra: Partial<ReactOptions> = {},
): Partial<AgentOptions> {
  return { react: reactOptions(settings, extra) };
}
