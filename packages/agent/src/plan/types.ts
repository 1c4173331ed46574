// Plan mode's contracts: a plan's steps, the options of a plan run, and what a round leaves
// behind. Plain data, so events can carry them and a session can rebuild a plan from its log.

import type { Model, StreamFunction, StreamOptions, Usage } from "@tern/ai";
import type { HookRegistry } from "../hooks.js";
import type { LoopPolicy } from "../policy.js";
import type { TelemetryOptions } from "../telemetry/options.js";
import type { AgentMessage, AnyAgentTool } from "../types.js";

/** How a task runs: one ReAct loop, a plan of steps, or a router's choice between the two. */
export const RUN_STRATEGIES = ["loop", "plan", "auto"] as const;
export type RunStrategy = (typeof RUN_STRATEGIES)[number];

export function isRunStrategy(value: unknown): value is RunStrategy {
  return (RUN_STRATEGIES as readonly unknown[]).includes(value);
}

export const MODEL_ROLES = ["fast", "reasoning"] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];

/** One step as the planner wrote it. */
export interface PlanStep {
  id: string;
  task: string;
  dependencies: string[];
  tool_hint: string | null;
  model_hint: ModelRole | null;
}

export type StepStatus = "done" | "failed" | "skipped" | "aborted";

/** What one step left: its result text (or why it has none), timings and usage. */
export interface StepOutcome {
  id: string;
  task: string;
  status: StepStatus;
  result: string;
  error?: string;
  startedAt: number;
  durationMs: number;
  usage: Usage;
}

export interface PlanAnalysis {
  achieved: boolean;
  /** Clamped to 0..1. */
  confidence: number;
  reasoning: string;
  final_answer: string | null;
  /** True when no degradation level could read the analyzer's reply: the verdict above is a default. */
  unreadable?: true;
}

/** One finished round: the steps planned, what they found, and the analyst's verdict. */
export interface PlanRound {
  round: number;
  steps: PlanStep[];
  outcomes: StepOutcome[];
  analysis?: PlanAnalysis;
  /** A user message that arrived during the round (it forces a replan). */
  userMessage?: string;
}

/** Where an interrupted plan picks up: the rounds before, and the current round's plan with its finished steps. */
export interface PlanCheckpoint {
  goal: string;
  rounds: PlanRound[];
  /** The round under way when the run stopped; absent when the next round had not been planned. */
  current?: { round: number; steps: PlanStep[]; done: StepOutcome[] };
}

export interface PlanOptions {
  /** Ready steps running at once. Default 4. */
  concurrency?: number;
  /** Rounds of plan, execute, analyse. Default 3. */
  maxRounds?: number;
  /** Replan when not achieved and confidence is below this. Default 0.8. */
  replanBelow?: number;
  /** Each step's time limit; a step past it fails. Default 10 minutes. */
  stepTimeoutMs?: number;
  /** Each step's turn limit; a step past it fails. Default 20. */
  stepMaxTurns?: number;
  /** Characters of each dependency's result a step's prompt carries. Default 4000. */
  resultChars?: number;
  /** Models for the planner's `model_hint`; a hint with no model here runs on the run's model. */
  roles?: Partial<Record<ModelRole, Model>>;
  /** The model that plans, analyses and routes. Default: the run's model. */
  plannerModel?: Model;
  /**
   * Tools whose answer does not change within a plan: a call with the same arguments runs once
   * per plan and every step that repeats it gets the first successful result. Default: none.
   */
  cacheableTools?: (tool: AnyAgentTool) => boolean;
}

/** Everything a plan run needs: the options above plus the loop's own parts, shared by every step. */
export interface PlanRunConfig extends PlanOptions {
  model: Model;
  systemPrompt?: string;
  tools?: AnyAgentTool[];
  streamFn?: StreamFunction;
  streamOptions?: Omit<StreamOptions, "signal" | "reasoning">;
  hooks?: HookRegistry;
  /** Policies of every step's loop (factories: each step gets its own per-run state). */
  policies?: LoopPolicy[];
  /** Polled between steps: user messages that arrived during the plan (each forces a replan). */
  getUserMessages?: () => AgentMessage[] | Promise<AgentMessage[]>;
  /** Continue an interrupted plan instead of planning from scratch. */
  resume?: PlanCheckpoint;
  now?: () => number;
  ids?: () => string;
  /** The plan run's spans (steps' model calls and tools are its children). */
  telemetry?: TelemetryOptions | false;
}

export const PLAN_DEFAULTS = {
  concurrency: 4,
  maxRounds: 3,
  replanBelow: 0.8,
  stepTimeoutMs: 10 * 60_000,
  stepMaxTurns: 20,
  resultChars: 4_000,
} as const;
