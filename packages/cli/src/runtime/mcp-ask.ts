// Asking on a terminal whether a project's MCP servers may start (once per project and server
// configuration; FileApprovalStore remembers the yes). Each question shows what would run, since
// a project's .mcp.json can name any command and it runs with the user's privileges.
import { createInterface } from "node:readline";
import type { McpServerConfig, McpServerEntry } from "@tern/mcp";
import type { Style } from "../render/style.js";
import type { McpApprover } from "./mcp.js";

/** What a server runs or reaches, in one line. */
export function describeMcpServer(config: McpServerConfig): string {
  if (config.type !== "stdio") return `${config.type} ${config.url}`;
  return [config.command, ...config.args]
    .map((part) => (/\s/.test(part) ? JSON.stringify(part) : part))
    .join(" ");
}

export function terminalMcpApprover(
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
  style: Style,
): McpApprover {
  return async (pending: McpServerEntry[], projectDir: string) => {
    output.write(
      `${style.yellow("?")} ${projectDir}/.mcp.json asks to start ${pending.length === 1 ? "an MCP server" : `${pending.length} MCP servers`}. They run with your privileges, outside the bash sandbox.\n`,
    );
    const allowed: string[] = [];
    const rl = createInterface({ input, output, terminal: true });
    try {
      for (const entry of pending) {
        const answer = await new Promise<string>((resolve) => {
          rl.question(
            `  ${style.bold(entry.name)}: ${describeMcpServer(entry.config)}\n  Start it (remembered for this project)? [y]es / [n]o `,
            resolve,
          );
          rl.once("close", () => resolve(""));
        });
        if (/^y(es)?$/i.test(answer.trim())) allowed.push(entry.name);
      }
    } finally {
      rl.close();
    }
    return allowed;
  };
}
