// The reference "everything" server from npm, over stdio, streamable HTTP, and its old HTTP+SSE
// mode (reached through the streamable HTTP fallback): its tools through the agent loop with a
// scripted model, and every kind of content it returns.

import { fauxToolCall } from "@tern/ai/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpManager, type McpServerConfig } from "../src/index.js";
import { runScripted, textOf } from "./support/run.js";
import { everythingBin, nodeServer, type RunningHttpServer, startEverythingHttp } from "./support/servers.js";

const ECHO = "mcp__everything__echo";

describe.each([
  ["stdio", "stdio"],
  ["streamable HTTP", "http"],
  ["HTTP+SSE through the fallback", "sse"],
] as const)("the everything server over %s", (_label, transport) => {
  let http: RunningHttpServer | undefined;
  let manager: McpManager;

  beforeAll(async () => {
    let config: McpServerConfig = nodeServer(everythingBin, ["stdio"]);
    if (transport !== "stdio") {
      http = await startEverythingHttp(transport === "http" ? "streamableHttp" : "sse");
      // Both remote cases are configured as "http": the SSE one must fall back.
      config = { type: "http", url: http.url, headers: { Authorization: "Bearer test-token" } };
    }
    manager = new McpManager({ everything: config }, { startupTimeoutMs: 15_000 });
    const status = await manager.waitForStartup();
    expect(status[0]).toMatchObject({ name: "everything", state: "ready", transport });
  });

  afterAll(async () => {
    await manager?.close();
    await http?.stop();
  });

  it("lists its tools as mcp__everything__* with their JSON Schemas and read-only kinds", () => {
    const tools = manager.tools();
    const echo = tools.find((tool) => tool.name === ECHO)!;
    expect(echo).toBeDefined();
    expect(echo.parameters).toMatchObject({ type: "object", properties: { message: { type: "string" } } });
    expect(echo.kind).toBe("read");
    expect(echo.mcp).toMatchObject({
      server: "everything",
      tool: "echo",
      annotations: { readOnlyHint: true },
    });
    for (const tool of tools) expect(tool.name).toMatch(/^mcp__everything__[a-zA-Z0-9_-]+$/);
    expect(tools.find((tool) => tool.name === "mcp__everything__gzip-file-as-resource")!.kind).toBe("exec");
  });

  it("serves tool calls from a scripted model through the agent loop", async () => {
    const run = await runScripted(manager.tools(), [
      {
        content: [
          fauxToolCall(ECHO, { message: "hello over MCP" }, "c1"),
          fauxToolCall("mcp__everything__get-sum", { a: 2, b: 40 }, "c2"),
        ],
      },
      "done",
    ]);
    expect(run.answer).toBe("done");
    expect(textOf(run.results[0])).toBe("Echo: hello over MCP");
    expect(textOf(run.results[1])).toContain("42");
    expect(run.results.every((result) => !result.isError)).toBe(true);
  });

  it("rejects arguments that do not fit the tool's schema before calling the server", async () => {
    const run = await runScripted(manager.tools(), [
      { content: [fauxToolCall(ECHO, { message: 7 }, "c1")] },
      "ok",
    ]);
    expect(run.results[0]!.isError).toBe(true);
    expect(textOf(run.results[0])).toContain('Invalid arguments for tool "mcp__everything__echo"');
  });

  it("maps images, resource links, embedded resources and structured content", async () => {
    const run = await runScripted(manager.tools(), [
      {
        content: [
          fauxToolCall("mcp__everything__get-tiny-image", {}, "img"),
          fauxToolCall("mcp__everything__get-resource-links", { count: 2 }, "links"),
          fauxToolCall(
            "mcp__everything__get-resource-reference",
            { resourceType: "Text", resourceId: 1 },
            "ref",
          ),
          fauxToolCall("mcp__everything__get-structured-content", { location: "Chicago" }, "structured"),
        ],
      },
      "done",
    ]);
    const [image, links, reference, structured] = run.results;
    expect(image!.content.some((part) => part.type === "image" && part.mimeType === "image/png")).toBe(true);
    expect(textOf(links)).toMatch(
      /\[resource link: .+ <demo:\/\/resource\/dynamic\/(text|blob)\/\d+> text\/plain; .+\]/,
    );
    expect(textOf(reference)).toMatch(/\[resource demo:\/\/resource\/.+\]\n/);
    expect(structured!.isError).toBe(false);
    const end = run.events.find((e) => e.type === "tool_execution_end" && e.toolCallId === "structured");
    expect(end).toMatchObject({
      result: { details: { structuredContent: { conditions: expect.any(String) } } },
    });
  });

  it("turns progress notifications into tool progress updates", async () => {
    const run = await runScripted(manager.tools(), [
      {
        content: [
          fauxToolCall("mcp__everything__trigger-long-running-operation", { duration: 0.3, steps: 3 }, "p"),
        ],
      },
      "done",
    ]);
    const updates = run.events.flatMap((e) =>
      e.type === "tool_execution_update"
        ? [e.partialResult.content.map((p) => (p.type === "text" ? p.text : "")).join("")]
        : [],
    );
    // The last notification may race the result; the ones before it may not.
    expect(updates.slice(0, 2)).toEqual(["progress 1/3", "progress 2/3"]);
    expect(textOf(run.results[0])).toContain("Long running operation completed");
  });
});
