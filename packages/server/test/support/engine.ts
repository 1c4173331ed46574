// An engine over a temporary session store and a scripted (faux) model, plus a server tool.
import type { AnyAgentTool } from "@tern/agent";
import { createFaux, type FauxOptions, type FauxProvider } from "@tern/ai/testing";
import { tempHome } from "../../../session/test/support/helpers.js";
import { Engine } from "../../src/engine/engine.js";
import { modelCatalog } from "../../src/engine/models.js";
import type { AgentConfig, EngineOptions } from "../../src/types.js";

/** A server-side tool that answers `found <q>`. */
export const lookupTool: AnyAgentTool = {
  name: "lookup",
  description: "Look a word up",
  parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  execute: (args: { q: string }) => `found ${args.q}`,
};

export interface TestEngine {
  engine: Engine;
  faux: FauxProvider;
  home: string;
  close(): Promise<void>;
}

export function testEngine(
  options: { faux?: FauxOptions; agent?: AgentConfig; engine?: Partial<EngineOptions> } = {},
): TestEngine {
  const { home, cleanup } = tempHome();
  const faux = createFaux(options.faux);
  const engine = new Engine({
    models: modelCatalog([faux.model]),
    home,
    cwd: home,
    fsync: "never",
    configureAgent: () => options.agent ?? {},
    ...options.engine,
  });
  return {
    engine,
    faux,
    home,
    close: async () => {
      await engine.shutdown();
      cleanup();
    },
  };
}
