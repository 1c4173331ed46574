// `tern mcp ls|approve|login|logout|serve`. Two halves that share nothing: the workspace's MCP
// servers (mcp-workspace.ts, which brings the MCP client, OAuth and process spawning) and tern
// itself as an MCP server (mcp-serve.ts). Each is imported by its subcommands only, so `mcp serve`
// answers `initialize` without loading the client side.
import { type ExitCode, UsageError } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { helpFor } from "../help.js";

export async function mcpCommand(argv: string[], io: Io): Promise<ExitCode> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case "ls":
    case "list":
      return (await import("./mcp-workspace.js")).list(rest, io);
    case "approve":
      return (await import("./mcp-workspace.js")).approve(rest, io);
    case "login":
    case "logout":
      return (await import("./mcp-workspace.js")).oauth(sub, rest, io);
    case "serve":
      return (await import("./mcp-serve.js")).mcpServeCommand(rest, io);
    case undefined:
    case "help":
    case "--help":
    case "-h":
      io.stdout.write(`${helpFor("mcp")}\n`);
      return 0;
    default:
      throw new UsageError(
        `unknown mcp command "${sub}"; use ls, approve, login, logout or serve (see tern mcp --help)`,
      );
  }
}
