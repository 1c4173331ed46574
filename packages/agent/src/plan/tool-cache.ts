// Cacheable tools (`PlanOptions.cacheableTools` says which) run once per plan for the same
// arguments: parallel steps often look up the same thing. A call in flight is shared; a failed call (error result or
// throw) is forgotten so a later step can try again. Each step gets its own wrapped copies.

import { canonicalJson } from "../policies/cycle-detection.js";
import type { AnyAgentTool } from "../types.js";

type Returned = Awaited<ReturnType<AnyAgentTool["execute"]>>;

/** No tool is cached unless the plan's options name it. */
export const NO_CACHEABLE_TOOLS = (_tool: AnyAgentTool): boolean => false;

export class ToolCache {
  private readonly results = new Map<string, Promise<Returned>>();

  constructor(private readonly cacheable: (tool: AnyAgentTool) => boolean = NO_CACHEABLE_TOOLS) {}

  /** A copy of each tool for one step; cacheable ones share this plan's results. */
  toolsForStep(tools: readonly AnyAgentTool[]): AnyAgentTool[] {
    return tools.map((tool) => (this.cacheable(tool) ? this.wrap(tool) : { ...tool }));
  }

  private wrap(tool: AnyAgentTool): AnyAgentTool {
    return {
      ...tool,
      execute: (args, context) => {
        const key = `${tool.name}\u0000${canonicalJson(args)}`;
        const known = this.results.get(key);
        if (known) return known;
        const running = Promise.resolve(tool.execute(args, context)).then((result) => {
          if (typeof result === "object" && result?.isError) this.results.delete(key);
          return result;
        });
        running.catch(() => this.results.delete(key));
        this.results.set(key, running);
        return running;
      },
    };
  }
}
