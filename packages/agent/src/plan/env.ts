// What every part of a plan run shares: the run's environment (run-env.ts), made once per plan
// run. The planner, executor, analyzer, router and synthesis take it as their one argument; its
// `usage` tally holds every model call of the plan, steps' calls included (they are forwarded).

import type { RunEnv } from "../run-env.js";

export type PlanEnv = RunEnv;
