// Plan mode: a DAG of ReAct steps run in parallel, analysed and replanned (see run-plan.ts).
export { planCheckpoint } from "./checkpoint.js";
export { runPlan } from "./run-plan.js";
export { runWithStrategy } from "./strategy.js";
export * from "./types.js";
export { planProblems } from "./validate.js";
