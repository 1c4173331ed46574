// A plan run's rounds as data: each round's steps (id, task, dependencies, depth in the DAG,
// status, duration, tokens, error, their own tool cards), folded from the FIM frames `phase`
// (`executing` brings the steps), `step_progress` (a step starts or ends) and `step` iteration
// frames that carry `step_id` (a step's tool calls, kept under that step instead of the turn).
// turns.ts calls foldPlanFrame; once-only folding by frame id stays there.

import { type Data, num, str } from "./data.js";
import { type ToolCard, updateTool } from "./tool-cards.js";

export type StepStatus = "pending" | "running" | "done" | "failed" | "skipped" | "aborted";

export interface PlanStep {
  id: string;
  task: string;
  dependencies: string[];
  /** 0 for a step with no dependencies, else one more than its deepest dependency. */
  level: number;
  status: StepStatus;
  durationMs?: number;
  tokens?: number;
  error?: string;
  tools: ToolCard[];
}

export interface PlanItem {
  kind: "plan";
  round: number;
  steps: PlanStep[];
}

const STATUSES = new Set<string>(["pending", "running", "done", "failed", "skipped", "aborted"]);

/** Each step's depth: columns of the graph, so steps that can run together stand together. */
export function levels(
  steps: readonly { id: string; dependencies: readonly string[] }[],
): Map<string, number> {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const levelOf = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    const step = byId.get(id);
    // An unknown dependency or a cycle (the server validates plans; this only keeps the page up).
    if (!step || visiting.has(id)) return -1;
    visiting.add(id);
    const level = Math.max(-1, ...step.dependencies.map(levelOf)) + 1;
    visiting.delete(id);
    depth.set(id, level);
    return level;
  };
  for (const step of steps) levelOf(step.id);
  return depth;
}

/** The steps of an `executing` frame, all pending. */
export function planOf(d: Data): PlanItem {
  const raw = (Array.isArray(d.steps) ? d.steps : []) as Data[];
  const parsed = raw
    .filter((step) => str(step.id))
    .map((step) => ({
      id: str(step.id),
      task: str(step.task),
      dependencies: (Array.isArray(step.dependencies) ? step.dependencies : []).filter(
        (dep): dep is string => typeof dep === "string",
      ),
    }));
  const depth = levels(parsed);
  return {
    kind: "plan",
    round: num(d.round),
    steps: parsed.map((step) => ({
      ...step,
      level: depth.get(step.id) ?? 0,
      status: "pending",
      tools: [],
    })),
  };
}

/** The analysis and a replan as a labelled note's text. */
export function analysisNote(d: Data): { label: string; text: string } {
  const confidence = num(d.confidence).toFixed(2);
  const verdict = d.achieved === true ? "achieved" : "not achieved";
  const reasoning = str(d.reasoning);
  return {
    label: `Analysis, round ${num(d.round)}`,
    text: `${verdict} · confidence ${confidence}${reasoning ? ` · ${reasoning}` : ""}`,
  };
}

export function replanNote(d: Data): { label: string; text: string } {
  const why =
    d.reason === "user_message"
      ? `your message${d.message ? `: ${str(d.message)}` : ""}`
      : d.reason === "low_confidence"
        ? "the goal was not reached with enough confidence"
        : str(d.reason);
  return { label: `Replan, round ${num(d.round)}`, text: why };
}

/**
 * Folds a step's start or end, or one of its tool calls, into the newest plan item that has the
 * step (of the frame's round, when it names one). Returns false when no plan has it.
 */
export function foldStepFrame(
  items: ({ kind: string } | PlanItem)[],
  event: string,
  d: Data,
  now: number,
): boolean {
  const stepId = str(d.step_id);
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i] as PlanItem;
    if (item.kind !== "plan") continue;
    if (event === "step_progress" && d.round !== undefined && item.round !== d.round) continue;
    const index = item.steps.findIndex((step) => step.id === stepId);
    if (index < 0) continue;
    const steps = [...item.steps];
    steps[index] = event === "step_progress" ? progressed(steps[index]!, d) : withTool(steps[index]!, d, now);
    items[i] = { ...item, steps };
    return true;
  }
  return false;
}

function progressed(step: PlanStep, d: Data): PlanStep {
  const status = STATUSES.has(str(d.status)) ? (str(d.status) as StepStatus) : step.status;
  const next: PlanStep = { ...step, status };
  if (typeof d.duration_ms === "number") next.durationMs = d.duration_ms;
  const usage = d.usage as Data | undefined;
  if (usage && typeof usage.total_tokens === "number") next.tokens = usage.total_tokens;
  if (typeof d.error === "string" && d.error) next.error = d.error;
  return next;
}

function withTool(step: PlanStep, d: Data, now: number): PlanStep {
  const tools = [...step.tools];
  updateTool(tools, d, now);
  return { ...step, tools: tools as ToolCard[] };
}
