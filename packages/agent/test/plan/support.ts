// A scripted cast for plan-mode tests: one faux model per actor (planner, analyzer, synthesis,
// router, and one per step id), chosen by what each request is. Parallel steps then read their
// own scripts, so a test never depends on which step asks first.
import { type Context, type Model, type ModelAbilities, type StreamOptions, stream } from "@tern/ai";
import { createFaux, type FauxProvider, type FauxStep, fauxToolCall } from "@tern/ai/testing";
import { z } from "zod";
import {
  type AgentEvent,
  type AgentTool,
  type AnyAgentTool,
  type PlanStep,
  taskTool,
} from "../../src/index.js";
import { echoTool } from "../helpers.js";

export interface Cast {
  /** The model runs are configured with; requests are rerouted to the actor's own script. */
  model: Model;
  planner: FauxProvider;
  analyzer: FauxProvider;
  synth: FauxProvider;
  router: FauxProvider;
  /** Serves requests that belong to no plan actor: a plain loop run. */
  loop: FauxProvider;
  step(id: string): FauxProvider;
  streamFn: typeof stream;
}

export function cast(abilities: Partial<ModelAbilities> = {}): Cast {
  const make = () => createFaux({ abilities });
  const planner = make();
  const analyzer = make();
  const synth = make();
  const router = make();
  const loop = make();
  const steps = new Map<string, FauxProvider>();
  const step = (id: string) => {
    const known = steps.get(id);
    if (known) return known;
    const faux = make();
    steps.set(id, faux);
    return faux;
  };
  const pick = (context: Context): FauxProvider => {
    const system = context.systemPrompt ?? "";
    if (system.startsWith("You plan")) return planner;
    if (system.startsWith("You judge")) return analyzer;
    if (system.startsWith("You write the final answer")) return synth;
    if (system.startsWith("You decide how")) return router;
    const first = context.messages[0];
    const text = typeof first?.content === "string" ? first.content : JSON.stringify(first?.content);
    const id = /Your task \(step "([^"]+)"\)/.exec(text)?.[1];
    return id === undefined ? loop : step(id);
  };
  const streamFn = (_model: Model, context: Context, options?: StreamOptions) =>
    stream(pick(context).model, context, options);
  return { model: planner.model, planner, analyzer, synth, router, loop, step, streamFn };
}

export function plan(...steps: Array<[string, string[]] | [string, string[], Partial<PlanStep>]>) {
  return {
    steps: steps.map(([id, dependencies, extra]) => ({
      id,
      task: `do ${id}`,
      dependencies,
      tool_hint: null,
      model_hint: null,
      ...extra,
    })),
  };
}

export const planReply = (value: unknown): FauxStep => ({
  content: [fauxToolCall("make_plan", value as Record<string, unknown>)],
});
export const analysisReply = (achieved: boolean, confidence: number, reasoning = "judged"): FauxStep => ({
  content: [fauxToolCall("analyze_results", { achieved, confidence, reasoning, final_answer: null })],
});
export const call = (name: string, args: Record<string, unknown> = {}): FauxStep => ({
  content: [fauxToolCall(name, args)],
});

/** A tool whose calls wait until `count` calls have entered: proof that they ran at the same time. */
export function latchTool(count: number, entered: string[] = []): AgentTool<{ tag: string }> {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    name: "latch",
    description: "Waits for the others",
    parameters: z.object({ tag: z.string() }),
    execute: async ({ tag }) => {
      entered.push(tag);
      if (entered.length >= count) open();
      await opened;
      return `latched ${tag}`;
    },
  };
}

/** A tool that never finishes on its own: it ends only when its call is aborted. */
export function waitTool(started?: () => void): AgentTool<Record<string, never>> {
  return {
    name: "wait",
    description: "Waits until aborted",
    parameters: z.object({}),
    execute: (_args, { signal }) =>
      new Promise((resolve) => {
        started?.();
        signal.addEventListener("abort", () => resolve({ content: "stopped", isError: true }), {
          once: true,
        });
      }),
  };
}

export function ofType<T extends AgentEvent["type"]>(events: AgentEvent[], type: T) {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

export function stepEnds(events: AgentEvent[]): Record<string, string> {
  return Object.fromEntries(ofType(events, "plan_step_end").map((e) => [e.stepId, e.status]));
}

/**
 * Scripts a one-step plan whose step "a" hands its work to a sub-agent (which calls `echo`), then
 * an analysis that accepts and the answer "done". Returns the tools: `echo` and `task`.
 */
export function stepWithSubagent(actors: Cast): AnyAgentTool[] {
  actors.planner.push(planReply(plan(["a", []])));
  actors.step("a").push(call("task", { description: "look", prompt: "look it up" }), "A");
  actors.loop.push(call("echo", { text: "x" }), "found x");
  actors.analyzer.push(analysisReply(true, 1));
  actors.synth.push("done");
  return [echoTool(), taskTool({ model: actors.model, streamFn: actors.streamFn, tools: [echoTool()] })];
}
