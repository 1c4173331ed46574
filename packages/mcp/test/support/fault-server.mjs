// A small MCP server over stdio for the fault tests, built on the SDK's server class.
// Its first argument picks a behaviour:
//   exit  - writes a reason to stderr and exits before the handshake
//   hang  - never answers (a server stuck at start)
//   once  - like tools the first time; exits at start on every later start (a crash loop)
//   tools - a working server: pid, slow (progress, then waits until cancelled), fail,
//           look (read-only), unlock (adds the tool "secret", which sends tools/list_changed)
// MARKER_FILE (env): where `slow` writes "cancelled" when its request is cancelled, and what
// `once` creates on its first start.
// PROTOCOL_VERSION (env): the MCP version the server answers initialize with, whatever the client
// asked for (a server that only speaks an older revision).
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const mode = process.argv[2] ?? "tools";

if (mode === "once") {
  if (existsSync(process.env.MARKER_FILE)) {
    process.stderr.write("fault-server: cannot start again\n");
    process.exit(4);
  }
  writeFileSync(process.env.MARKER_FILE, "started\n");
}

if (mode === "exit") {
  process.stderr.write("fault-server: no API key configured\n");
  process.exit(3);
}

if (mode === "hang") {
  // Keeps the process alive and never reads stdin.
  setInterval(() => {}, 1_000);
} else {
  const server = new McpServer({ name: "fault-server", version: "1.0.0" });
  server.registerTool("pid", { description: "The server's process id" }, () => ({
    content: [{ type: "text", text: String(process.pid) }],
  }));
  server.registerTool(
    "echo",
    { description: "Echoes text", inputSchema: { text: z.string() } },
    ({ text }) => ({
      content: [{ type: "text", text: `echo: ${text}` }],
    }),
  );
  server.registerTool(
    "look",
    { description: "Looks without touching", annotations: { readOnlyHint: true } },
    () => ({ content: [{ type: "text", text: "looked" }] }),
  );
  server.registerTool("fail", { description: "Always fails" }, () => ({
    content: [{ type: "text", text: "the thing is broken" }],
    isError: true,
  }));
  server.registerTool(
    "slow",
    { description: "Reports progress, then waits until cancelled" },
    async (extra) => {
      const token = extra._meta?.progressToken;
      if (token !== undefined) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: 1, total: 2, message: "started" },
        });
      }
      // The cancellation may arrive while the progress is still being sent.
      await new Promise((resolve) => {
        if (extra.signal.aborted) resolve();
        else extra.signal.addEventListener("abort", resolve, { once: true });
      });
      if (process.env.MARKER_FILE) appendFileSync(process.env.MARKER_FILE, "cancelled\n");
      return { content: [{ type: "text", text: "cancelled" }] };
    },
  );
  server.registerTool("unlock", { description: "Adds the tool `secret`" }, () => {
    server.registerTool("secret", { description: "Only there after unlock" }, () => ({
      content: [{ type: "text", text: "the secret is 42" }],
    }));
    return { content: [{ type: "text", text: "unlocked" }] };
  });
  const transport = new StdioServerTransport();
  const pinned = process.env.PROTOCOL_VERSION;
  if (pinned) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) =>
      send(
        message.result?.protocolVersion
          ? { ...message, result: { ...message.result, protocolVersion: pinned } }
          : message,
        options,
      );
  }
  await server.connect(transport);
}
