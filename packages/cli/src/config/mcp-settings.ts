// The MCP flags of `run`, `chat` and `serve`: --mcp-config FILE (repeatable) adds configuration
// files after $TERN_HOME/mcp.json and the project's .mcp.json; --no-mcp starts no MCP server at
// all; --mcp-sandbox runs local (stdio) servers under the bash sandbox. The flags are in AGENT_OPTIONS (cli/args.ts); their meaning lives here.
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { listOption, type OptionValues } from "../cli/args.js";
import { UsageError } from "../cli/errors.js";

export interface McpSettings {
  /** False under --no-mcp. */
  enabled: boolean;
  /** --mcp-config files, absolute, in the order given. */
  files: string[];
  /** --mcp-sandbox: local servers run under bubblewrap like `bash` (workspace writable, no network). */
  sandbox: boolean;
}

export function resolveMcpSettings(values: OptionValues, cwd: string): McpSettings {
  const files = listOption(values, "mcp-config").map((file) => resolve(cwd, file));
  const enabled = values["no-mcp"] !== true;
  if (!enabled && files.length > 0)
    throw new UsageError("--no-mcp and --mcp-config contradict each other; pass one of them");
  for (const file of files) {
    let isFile = false;
    try {
      isFile = statSync(file).isFile();
    } catch {}
    if (!isFile) throw new UsageError(`--mcp-config ${file}: no such file`);
  }
  return { enabled, files, sandbox: values["mcp-sandbox"] === true };
}
