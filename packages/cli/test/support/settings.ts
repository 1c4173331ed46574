// Agent settings resolved in process from argv, an environment and a config.json, as `tern run`
// would resolve them (a fresh TERN_HOME each call).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_OPTIONS, parseCommandArgs } from "../../src/cli/args.js";
import { loadHome } from "../../src/config/home.js";
import { resolveAgentSettings } from "../../src/config/settings.js";
import { tempDir } from "./tern.js";

export function settingsFor(argv: string[], env: NodeJS.ProcessEnv = {}, config?: unknown) {
  const home = tempDir();
  if (config !== undefined) writeFileSync(join(home, "config.json"), JSON.stringify(config));
  const environment = { env: { TERN_HOME: home, ...env }, cwd: tempDir() };
  const { values } = parseCommandArgs("run", argv, AGENT_OPTIONS);
  return resolveAgentSettings(values, environment, loadHome(environment));
}
