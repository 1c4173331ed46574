// tern with its tool-selection policy on (`toolSelection()` from @tern/agent, defaults: above
// 12 tools one structured call before the loop picks at most 6, and `request_tools` is offered
// to load the rest). Looked up at run time: until @tern/agent exports it, this runtime is
// reported as unable.

import type { LoopPolicy } from "@tern/agent";
import { ternAdapter } from "./tern.js";

export const adapter = ternAdapter(async () => {
  const agent = (await import("@tern/agent")) as { toolSelection?: () => LoopPolicy };
  if (typeof agent.toolSelection !== "function")
    throw new Error("@tern/agent does not export toolSelection yet");
  return [agent.toolSelection()];
});
