// The `task` tool: runs a sub-agent — a fresh loop with its own context (no conversation), a task
// for a prompt, its own turn limit — and returns its answer. Sub-agents of one batch run in
// parallel like any tool calls. They get the parent's tools as they are when the call starts (a
// getter, so tools that joined later, MCP tools say, come too), or fewer by profile, its hooks (so
// the same permission policy asks and denies) and its bash sandbox: never more than the parent.
// A depth limit stops recursion. Their model calls and tool executions reach the parent's stream
// marked with `parentToolCallId`, between `subagent_start` and `subagent_end`, so their usage adds
// into the run's total exactly once (the run counts model_call_end events).

import { emptyUsage, type Model, type StreamFunction, type StreamOptions } from "@tern/ai";
import { z } from "zod";
import type { HookRegistry } from "../hooks.js";
import { runAgentLoop, runNestedLoop } from "../loop.js";
import { userMessage } from "../messages.js";
// A sub-agent passes on what a plan step does: model calls, tools, errors and deeper sub-agents.
import { FORWARDED } from "../plan/step.js";
import type { LoopPolicy } from "../policy.js";
import type { AgentEvent, AgentStopReason, AgentTool, AnyAgentTool } from "../types.js";
import type { SubagentStatus } from "./events.js";
import type { AgentProfile } from "./profile.js";

export const TASK_TOOL_NAME = "task";
/** How deep sub-agents may nest: 1 = the run's sub-agents cannot start their own. */
export const DEFAULT_MAX_SUBAGENT_DEPTH = 2;
export const DEFAULT_SUBAGENT_MAX_TURNS = 20;
/** The profile used when the model names none. */
export const GENERAL_AGENT = "general";

const GENERAL_PROMPT =
  "You are a sub-agent: another agent gave you one task. Work on it with your tools, then answer with " +
  "what you found or did, concisely and completely: your answer is all the other agent will see.";

const ANSWERED = new Set<AgentStopReason>(["stop", "length", "terminated"]);

export interface TaskToolOptions {
  model: Model;
  streamFn?: StreamFunction;
  streamOptions?: Omit<StreamOptions, "signal" | "reasoning">;
  /**
   * The parent's tools, or a getter read at each call (for a parent whose tools change between
   * turns); sub-agents get these (a `task` tool among them is ignored: each level makes its own).
   */
  tools: readonly AnyAgentTool[] | (() => readonly AnyAgentTool[]);
  /** The parent's hooks (permissions): sub-agents' calls pass the same checks. */
  hooks?: HookRegistry;
  /** Loop policies for each sub-agent run (an iteration limit, ...). */
  policies?: LoopPolicy[];
  /** Named profiles the model may pick with `agent`. */
  profiles?: readonly AgentProfile[];
  /** Resolves a profile's `model`; undefined = unknown (the call fails with a clear error). */
  resolveModel?: (id: string) => Model | undefined;
  /** Default turn limit of a sub-agent. Default DEFAULT_SUBAGENT_MAX_TURNS. */
  maxTurns?: number;
  /** Default DEFAULT_MAX_SUBAGENT_DEPTH (the CLI maps TERN_MAX_SUBAGENT_DEPTH onto it). */
  maxDepth?: number;
  /** The depth of the agent that owns this tool: 0 for the top-level run. */
  depth?: number;
  now?: () => number;
  ids?: () => string;
}

export interface TaskDetails {
  agent: string;
  depth: number;
  status: SubagentStatus;
  turns: number;
}

const parameters = z.object({
  description: z
    .string()
    .min(1)
    .max(120)
    .describe("A short (3-8 words) label for the task, shown to the user."),
  prompt: z
    .string()
    .min(1)
    .describe(
      "The whole task for the sub-agent: it sees nothing else of this conversation, so include every detail it needs.",
    ),
  agent: z.string().optional().describe(`Which agent profile runs it. Default "${GENERAL_AGENT}".`),
});

export function taskTool(options: TaskToolOptions): AgentTool<z.infer<typeof parameters>, TaskDetails> {
  const depth = options.depth ?? 0;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_SUBAGENT_DEPTH;
  const profiles = new Map((options.profiles ?? []).map((profile) => [profile.name, profile]));
  const now = options.now ?? Date.now;
  const catalog = [...profiles.values()].map((p) => `- ${p.name}: ${p.description}`).join("\n");
  return {
    name: TASK_TOOL_NAME,
    label: "Run sub-agent",
    description:
      "Start a sub-agent on a self-contained task with a fresh context; it works with its own tools and returns one answer. " +
      "Use it for searches and investigations whose details you do not need to keep, and run several at once for independent tasks. " +
      (catalog ? `Agents:\n- ${GENERAL_AGENT}: a general-purpose agent with your tools\n${catalog}` : ""),
    parameters,
    async execute({ description, prompt, agent = GENERAL_AGENT }, context) {
      if (depth >= maxDepth)
        return {
          content: `Sub-agents cannot go deeper than ${maxDepth} level${maxDepth === 1 ? "" : "s"}; do this task yourself.`,
          isError: true,
        };
      const profile = agent === GENERAL_AGENT ? undefined : profiles.get(agent);
      if (agent !== GENERAL_AGENT && !profile)
        return {
          content: `There is no agent "${agent}". Agents: ${[GENERAL_AGENT, ...profiles.keys()].join(", ")}.`,
          isError: true,
        };
      let model = options.model;
      if (profile?.model) {
        const resolved = options.resolveModel?.(profile.model);
        if (!resolved)
          return {
            content: `The agent "${agent}" asks for the model "${profile.model}", which is not available here.`,
            isError: true,
          };
        model = resolved;
      }
      const emit = context.emit ?? (async () => {});
      // In a loop the sub-agent is a nested run: the parent traces what it forwards. Called
      // outside a loop (no stream to forward to), it is a run of its own.
      const runLoop = context.emit ? runNestedLoop : runAgentLoop;
      const parentToolCallId = context.toolCallId;
      const tools = childTools(options, depth, maxDepth, profile);
      const maxTurns = profile?.maxTurns ?? options.maxTurns ?? DEFAULT_SUBAGENT_MAX_TURNS;
      const startedAt = now();
      await emit({
        type: "subagent_start",
        parentToolCallId,
        agent,
        task: description,
        model: model.id,
        depth: depth + 1,
        timestamp: startedAt,
      });
      const usage = emptyUsage();
      let turns = 0;
      let turnLimit = false;
      let status: SubagentStatus = "failed";
      let answer = "";
      let error: string | undefined;
      try {
        const result = await runLoop(
          [userMessage(prompt, now())],
          { systemPrompt: profile?.systemPrompt ?? GENERAL_PROMPT, messages: [], tools },
          {
            model,
            ...(options.streamFn ? { streamFn: options.streamFn } : {}),
            ...(options.streamOptions ? { streamOptions: options.streamOptions } : {}),
            ...(options.hooks ? { hooks: options.hooks } : {}),
            ...(options.policies ? { policies: options.policies } : {}),
            ...(options.now ? { now: options.now } : {}),
            ...(options.ids ? { ids: options.ids } : {}),
            shouldStopAfterTurn: (turn) => {
              turnLimit = turn.toolResults.length > 0 && turn.turn >= maxTurns;
              return turnLimit;
            },
          },
          async (event) => {
            if (!FORWARDED.has(event.type)) return;
            // Events of deeper sub-agents keep their own parent: that is where they nest.
            const marked =
              "parentToolCallId" in event && event.parentToolCallId ? event : { ...event, parentToolCallId };
            await emit(marked as AgentEvent);
          },
          context.signal,
        );
        turns = result.iterations;
        answer = result.answer;
        // The run's usage counts nested sub-agents' calls too: it is this sub-agent's whole cost.
        Object.assign(usage, result.usage);
        if (context.signal.aborted) {
          status = "aborted";
          error = "the sub-agent was aborted";
        } else if (turnLimit)
          error = `the sub-agent reached its turn limit (${maxTurns} turns) without a final answer`;
        else if (ANSWERED.has(result.stopReason)) status = "done";
        else
          error = `the sub-agent ended with ${result.stopReason}${result.errorMessage ? `: ${result.errorMessage}` : ""}`;
      } catch (thrown) {
        error = `the sub-agent failed: ${(thrown as Error)?.message ?? String(thrown)}`;
      }
      await emit({
        type: "subagent_end",
        parentToolCallId,
        agent,
        status,
        answer,
        ...(error !== undefined ? { error } : {}),
        turns,
        usage,
        durationMs: now() - startedAt,
      });
      const details: TaskDetails = { agent, depth: depth + 1, status, turns };
      if (status === "done") return { content: answer || "(the sub-agent gave no text)", details };
      const partial = answer ? `\nIts last text:\n${answer}` : "";
      return {
        content: `The sub-agent (${agent}) did not finish: ${error}.${partial}`,
        isError: true,
        details,
      };
    },
  };
}

/**
 * The parent's current tools, narrowed by the profile's list, with `task` replaced by one a level
 * deeper (or removed at the depth limit). A profile cannot add a tool the parent does not have, and
 * the deeper `task` hands on this narrowed set, so a sub-agent's own sub-agents get no more.
 */
function childTools(
  options: TaskToolOptions,
  depth: number,
  maxDepth: number,
  profile: AgentProfile | undefined,
): AnyAgentTool[] {
  const allowed = profile?.tools ? new Set(profile.tools) : undefined;
  const parent = options.tools;
  const narrowed = (): AnyAgentTool[] =>
    (typeof parent === "function" ? parent() : parent).filter(
      (tool) => tool.name !== TASK_TOOL_NAME && (!allowed || allowed.has(tool.name)),
    );
  const out = narrowed();
  if (depth + 1 < maxDepth && (!allowed || allowed.has(TASK_TOOL_NAME)))
    out.push(taskTool({ ...options, tools: narrowed, depth: depth + 1, maxDepth }) as AnyAgentTool);
  return out;
}
