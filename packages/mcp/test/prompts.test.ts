// MCP prompts and resources against a real SDK server (test/support/prompt-server.mjs) over stdio:
// listing, argument parsing, prompts/get as text, resources/read, and the errors of bad input.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contentAsText, McpManager, parsePromptArguments, promptText } from "../src/index.js";
import { nodeServer } from "./support/servers.js";

const script = join(import.meta.dirname, "support", "prompt-server.mjs");
let manager: McpManager;

beforeAll(async () => {
  manager = new McpManager({ notes: nodeServer(script) });
  await manager.waitForStartup();
});

afterAll(async () => {
  await manager?.close();
});

describe("MCP prompts", () => {
  it("lists the prompts under tool-style names and runs one with named or positional arguments", async () => {
    const [command, ...rest] = manager.prompts();
    expect(rest).toEqual([]);
    expect(command!.name).toBe("mcp__notes__review");
    expect(command!.prompt.description).toBe("Review a file");

    const named = parsePromptArguments(command!, ["focus=style", "file=a.ts"]);
    expect(named).toEqual({ ok: true, args: { file: "a.ts", focus: "style" } });
    const positional = parsePromptArguments(command!, ["b.ts", "error", "handling"]);
    expect(positional).toEqual({ ok: true, args: { file: "b.ts", focus: "error handling" } });

    const result = await manager.getPrompt(command!, { file: "b.ts" });
    expect(promptText(result)).toBe("Please review b.ts for bugs.\n\n[image (image/png, 3 bytes) not shown]");
  });

  it("names a missing required argument and refuses extra words", () => {
    const command = manager.prompts()[0]!;
    expect(parsePromptArguments(command, ["focus=x"])).toEqual({
      ok: false,
      error: "/mcp__notes__review needs file: /mcp__notes__review file=… [focus=…]",
    });
    const bare = { ...command, prompt: { name: "bare" } };
    expect(parsePromptArguments(bare, ["x"]).ok).toBe(false);
  });
});

describe("MCP resources", () => {
  it("reads text and describes binary contents", async () => {
    const text = await manager.readResource("notes", "notes://today");
    expect(text.contents.map((c) => contentAsText({ type: "resource", resource: c }))).toEqual([
      "[resource notes://today]\nbuy milk-7731",
    ]);
    const blob = await manager.readResource("notes", "notes://logo");
    expect(contentAsText({ type: "resource", resource: blob.contents[0]! })).toBe(
      "[resource notes://logo (application/octet-stream, 4 bytes) not shown]",
    );
  });

  it("fails with a clear error for an unknown server or resource", async () => {
    await expect(manager.readResource("nope", "notes://today")).rejects.toThrow('no MCP server "nope"');
    await expect(manager.readResource("notes", "notes://missing")).rejects.toThrow(/notes:\/\/missing/);
  });
});
