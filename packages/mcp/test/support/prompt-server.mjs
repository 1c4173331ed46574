// A small MCP server over stdio with one prompt ("review", arguments file and focus) and two
// resources (notes://today as text, notes://logo as a binary blob), for the prompt and resource tests.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "prompt-server", version: "1.0.0" });
server.registerPrompt(
  "review",
  {
    description: "Review a file",
    argsSchema: { file: z.string(), focus: z.string().optional() },
  },
  ({ file, focus }) => ({
    messages: [
      { role: "user", content: { type: "text", text: `Please review ${file} for ${focus ?? "bugs"}.` } },
      { role: "user", content: { type: "image", data: "AAAA", mimeType: "image/png" } },
    ],
  }),
);
server.registerResource("today", "notes://today", { mimeType: "text/plain" }, (uri) => ({
  contents: [{ uri: uri.href, mimeType: "text/plain", text: "buy milk-7731" }],
}));
server.registerResource("logo", "notes://logo", { mimeType: "application/octet-stream" }, (uri) => ({
  contents: [{ uri: uri.href, mimeType: "application/octet-stream", blob: "AAECAw==" }],
}));
await server.connect(new StdioServerTransport());
