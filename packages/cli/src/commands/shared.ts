// Pieces every agent command shares: settings, style, warnings, the surface.

import { realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { isInside } from "@tern/tools";
import { listOption, type OptionValues } from "../cli/args.js";
import type { Io } from "../cli/io.js";
import { loadHome } from "../config/home.js";
import { type AgentSettings, checkDirectory, resolveAgentSettings } from "../config/settings.js";
import { colorEnabled, createStyle, type Style } from "../render/style.js";

export interface CommandContext {
  settings: AgentSettings;
  style: Style;
  warn: (message: string) => void;
}

export function commandContext(values: OptionValues, io: Io): CommandContext {
  const style = createStyle(colorEnabled(io.stderr, io.env));
  const warn = (message: string) => io.stderr.write(`${style.yellow("tern: warning:")} ${message}\n`);
  const home = loadHome(io);
  for (const warning of home.config.warnings) warn(warning);
  return { settings: resolveAgentSettings(values, io, home), style, warn };
}

/**
 * The directories a stdio server's callers may work in (`mcp serve`, `acp`): the workspace and
 * each --allow-root, as real paths; one that is not a directory is a usage error.
 */
export function allowedRoots(values: OptionValues, settings: AgentSettings, io: Io): string[] {
  return [settings.cwd, ...listOption(values, "allow-root").map((dir) => resolve(io.cwd, dir))].map((dir) => {
    checkDirectory(dir, "--allow-root");
    return realpathSync(dir);
  });
}

/**
 * The workspace a served session or call asked for, as its real path: an existing directory inside
 * one of the roots, or the reason it is not (`who` names the host in the message, with `hint`).
 */
export function workspaceIn(
  dir: string,
  roots: readonly string[],
  who: string,
  hint: string,
): string | { error: string } {
  let real: string;
  try {
    real = realpathSync(dir);
    if (!statSync(real).isDirectory()) return { error: `cwd ${dir} is not a directory` };
  } catch {
    return { error: `cwd ${dir} does not exist` };
  }
  if (!roots.some((root) => isInside(root, real)))
    return { error: `cwd ${dir} is outside the directories ${who} may work in (${hint})` };
  return real;
}
