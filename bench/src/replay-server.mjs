// A loopback SSE server in its own process, so the client process's CPU time is the provider
// layer's alone. Serves `GET|POST /<protocol>/<file>` from the provider-stream captures.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const root = new URL("../../packages/ai/test/fixtures/provider-streams/", import.meta.url);
const cache = new Map();

function body(path) {
  let bytes = cache.get(path);
  if (bytes) return bytes;
  const text = readFileSync(new URL(path, root), "utf8");
  if (path.endsWith(".sse")) bytes = Buffer.from(text);
  else {
    const lines = text.split("\n").filter((line) => line.trim() !== "");
    const typed = !path.startsWith("openai-completions/");
    const events = lines.map(
      (line) => `${typed ? `event: ${JSON.parse(line).type}\n` : ""}data: ${line}\n\n`,
    );
    bytes = Buffer.from(events.join("") + (typed ? "" : "data: [DONE]\n\n"));
  }
  cache.set(path, bytes);
  return bytes;
}

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    // The client appends its own API path (/chat/completions, /responses, /v1/messages): strip it.
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname.slice(1)).replace(
      /\/(v1\/)?(chat\/completions|responses|messages)$/,
      "",
    );
    try {
      const bytes = body(path);
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(bytes);
    } catch {
      res.writeHead(404).end();
    }
  });
});
server.listen(0, "127.0.0.1", () => process.send?.({ port: server.address().port }));
process.on("disconnect", () => process.exit(0));
