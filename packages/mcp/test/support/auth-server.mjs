// A streamable HTTP MCP server on a loopback port (stateless, one tool `whoami`) that answers 401
// unless the request carries `Authorization: Bearer <TOKEN env>`. Prints "listening <port>" on
// stdout once it listens. Built on the SDK's server classes and node:http.
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

const token = process.env.TOKEN ?? "";

const http = createServer(async (req, res) => {
  if (req.headers.authorization !== `Bearer ${token}`) {
    res.writeHead(401, { "content-type": "text/plain" }).end("missing or wrong token");
    return;
  }
  // Stateless: a fresh server and transport per request.
  const server = new McpServer({ name: "auth-server", version: "1.0.0" });
  server.registerTool("whoami", { description: "Says who the caller is" }, () => ({
    content: [{ type: "text", text: "an authorised caller" }],
  }));
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on("close", () => {
    transport.close();
    server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
});

http.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${http.address().port}\n`);
});
