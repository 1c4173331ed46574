// Tool selection: with many tools registered, one structured call before the first model call
// picks the few the task needs, from a compact catalog. Anything unusable (an error, garbage, an
// empty list, only unknown names) keeps every tool: selection may only save tokens, never lose a
// tool the model needs. Pinned tools are always kept, and `request_tools` lets the model load more
// later. Tools that join the run after its first turn (MCP servers that came up late or changed
// their lists) are hidden behind `request_tools` too when the run has more than the threshold,
// so a late server's fifty tools do not flood every later turn.

import type { JsonSchema, Model } from "@tern/ai";
import { userMessage } from "../messages.js";
import type { LoopPolicy, PolicyRun } from "../policy.js";
import type { AgentEvent, AnyAgentTool } from "../types.js";
import { visibleStructuredCall } from "../visible-structured-call.js";
import { setting } from "./setting.js";
import { catalog, DEFAULT_CATALOG_LINE_CHARS } from "./tool-catalog.js";
import { REQUEST_TOOLS_TOOL } from "./tool-names.js";

export const DEFAULT_TOOL_SELECTION_THRESHOLD = 12;
export const DEFAULT_MAX_SELECTED_TOOLS = 6;

export interface ToolSelectionOptions {
  /** Selection runs when more tools than this are registered. Default 12. */
  threshold?: number;
  /** Most tools the selection keeps (pinned tools not counted). Default 6. */
  maxSelected?: number;
  /** Tool names always kept. */
  pinnedTools?: string[];
  /** Characters a catalog line may take. Default 80. */
  catalogLineChars?: number;
  /** Offer `request_tools` to load hidden tools mid-run. Default true. */
  requestTools?: boolean;
  /** The model that selects (default: the run's model). */
  model?: Model;
}

const SCHEMA: JsonSchema = {
  type: "object",
  properties: { tools: { type: "array", items: { type: "string" } } },
  required: ["tools"],
};

export function toolSelection(options: ToolSelectionOptions = {}): LoopPolicy {
  const threshold = setting(options.threshold, DEFAULT_TOOL_SELECTION_THRESHOLD);
  const max = setting(options.maxSelected, DEFAULT_MAX_SELECTED_TOOLS);
  const lineChars = setting(options.catalogLineChars, DEFAULT_CATALOG_LINE_CHARS, 20);
  const pinned = new Set(options.pinnedTools ?? []);
  return {
    name: "tool_selection",
    start: () => {
      // Decided before the first model call rather than at start: tools that join the run in its
      // first prepareNextTurn (MCP servers coming up) are part of the choice.
      let decided = false;
      /** The tools of the first turn: a tool not among them arrived later. */
      const seen = new Set<string>();
      /** What the selection kept; undefined when no selection ran (every first-turn tool stays). */
      let picked: Set<string> | undefined;
      /** The selection failed: every tool stays, now and later. */
      let keepAll = false;
      const loaded = new Set<string>();
      let requestTool: { key: string; tool: AnyAgentTool } | undefined;
      const hiddenIn = (runTools: readonly AnyAgentTool[]): Set<string> => {
        const crowded = picked !== undefined || runTools.length > threshold;
        const hidden = new Set<string>();
        for (const { name } of runTools) {
          if (loaded.has(name) || pinned.has(name)) continue;
          // Hidden: not picked, or (with many tools) arrived after the first turn; load with request_tools.
          if ((picked !== undefined && seen.has(name) && !picked.has(name)) || (crowded && !seen.has(name)))
            hidden.add(name);
        }
        return hidden;
      };
      return {
        beforeModelCall: async (run) => {
          if (decided) return;
          decided = true;
          const all = run.tools.slice();
          for (const tool of all) seen.add(tool.name);
          if (all.length <= threshold) return;
          await run.emit({ type: "phase", phase: "selecting_tools", detail: { totalTools: all.length } });
          picked = await pick(run, options.model ?? run.model, all, { max, pinned, lineChars });
          if (!picked) keepAll = true;
        },
        tools: (tools, run) => {
          if (keepAll || !decided) return tools;
          const hidden = hiddenIn(run.tools);
          if (hidden.size === 0) return tools;
          const visible = tools.filter((tool) => !hidden.has(tool.name));
          if (options.requestTools === false) return visible;
          // Its description lists the hidden tools: rebuilt when they change.
          const key = [...hidden].join("\n");
          if (requestTool?.key !== key) {
            const tool = requestToolsTool(
              run.tools.filter((t) => hidden.has(t.name)),
              (names) => {
                for (const name of names) loaded.add(name);
              },
            );
            requestTool = { key, tool };
          }
          return [...visible, requestTool.tool];
        },
      };
    },
  };
}

/** The names to keep, or undefined to keep every tool. */
async function pick(
  run: PolicyRun,
  model: Model,
  tools: AnyAgentTool[],
  { max, pinned, lineChars }: { max: number; pinned: ReadonlySet<string>; lineChars: number },
): Promise<Set<string> | undefined> {
  const known = new Set(tools.map((tool) => tool.name));
  const prompt = [
    `Task:\n${run.prompt}`,
    `Tools:\n${catalog(tools, lineChars)}`,
    `Pick the tools needed for this task: at most ${max}, by exact name, most useful first. Answer as {"tools": ["name", ...]}.`,
  ].join("\n\n");
  let answer: unknown;
  try {
    const { toolChoice: _c, responseFormat: _f, signal, ...streamOptions } = run.streamOptions;
    const env = {
      emit: (event: AgentEvent) => run.emit(event),
      now: () => run.now(),
      ids: () => run.newId(),
      streamFn: run.streamFn,
      streamOptions,
      signal: signal ?? run.signal,
    };
    const result = await visibleStructuredCall(
      env,
      model,
      {
        systemPrompt: "You choose which tools an assistant needs for a task. You never do the task yourself.",
        messages: [userMessage(prompt, run.now())],
      },
      { schema: SCHEMA, name: "select_tools", purpose: "tool_selection" },
    );
    answer = result.value;
  } catch {
    answer = undefined; // an error keeps every tool
  }
  const names = Array.isArray((answer as { tools?: unknown })?.tools)
    ? (answer as { tools: unknown[] }).tools
    : [];
  const valid = names.flatMap((name) =>
    typeof name === "string" && known.has(name.trim()) ? [name.trim()] : [],
  );
  if (valid.length === 0) return undefined;
  const chosen = new Set<string>();
  for (const name of valid) if (!pinned.has(name) && chosen.size < max) chosen.add(name);
  for (const name of pinned) if (known.has(name)) chosen.add(name);
  return chosen;
}

function requestToolsTool(hidden: readonly AnyAgentTool[], loaded: (names: string[]) => void): AnyAgentTool {
  const names = new Set(hidden.map((tool) => tool.name));
  return {
    name: REQUEST_TOOLS_TOOL,
    // Names only: this description goes out with every turn, so a full catalog would cost more
    // prompt tokens than the selection saved.
    description: `Load more tools for this task; they can be called from your next step. Tools not loaded yet: ${[...names].join(", ")}.`,
    parameters: {
      type: "object",
      properties: {
        names: { type: "array", items: { type: "string" }, description: "Names of the tools to load" },
      },
      required: ["names"],
    },
    execute: ({ names: wanted }: { names: string[] }) => {
      const found = wanted.filter((name) => names.has(name));
      const unknown = wanted.filter((name) => !names.has(name));
      if (found.length === 0) {
        return {
          content: `No tool was loaded: ${unknown.length ? `unknown ${unknown.join(", ")}` : "no names given"}. Tools you can load: ${[...names].join(", ")}.`,
          isError: true,
        };
      }
      loaded(found);
      const skipped = unknown.length ? ` Unknown, not loaded: ${unknown.join(", ")}.` : "";
      return `Loaded: ${found.join(", ")}. You can call them from your next step.${skipped}`;
    },
  };
}
