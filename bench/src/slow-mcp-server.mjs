// A real MCP server (the official SDK's McpServer over stdio) that is slow to start: it waits
// argv[2] milliseconds before it reads its first message. The `mcp-initialize` bench configures it
// for `tern mcp serve`, whose answer to `initialize` must not wait for it.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const delayMs = Number(process.argv[2] ?? 10_000);
await new Promise((resolve) => setTimeout(resolve, delayMs));
const server = new McpServer({ name: "slow-start", version: "1.0.0" });
server.registerTool("ping", { description: "Answers pong" }, () => ({
  content: [{ type: "text", text: "pong" }],
}));
await server.connect(new StdioServerTransport());
