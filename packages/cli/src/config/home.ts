// Where tern keeps its files ($TERN_HOME, default ~/.tern) and the config.json read from there:
// what every command needs first. Its own module so a command that only reads sessions (ls,
// usage) does not load the agent settings and the permission-rule parsers they validate with.
import { resolve } from "node:path";
import type { Redactor } from "@tern/ai";
import { type LoadedConfig, loadConfig, ternHomeFrom } from "./config-file.js";

export interface Environment {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** What the command's output hides; learns the key ensureConfiguredKey resolves. */
  redactor?: Redactor;
}

/** Where tern keeps its files, and the config read from there. */
export interface Home {
  home: string;
  config: LoadedConfig;
}

export function loadHome(environment: Environment): Home {
  const home = resolve(environment.cwd, ternHomeFrom(environment.env));
  return { home, config: loadConfig(home) };
}
