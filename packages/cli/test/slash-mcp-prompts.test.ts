// MCP prompts as `tern chat` slash commands, against real MCP servers over stdio: the prompt server
// of @tern/mcp's tests (review: file required, focus optional), the npm everything server (whose
// resource-prompt fails on a bad argument) and the fault server hanging at start. What /help lists,
// what is sent, and the one line for each bad input, with nothing sent.
import { McpManager } from "@tern/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everythingBin, faultServer, nodeServer } from "../../mcp/test/support/servers.js";
import { runSlash, type SlashContext } from "../src/chat/slash.js";
import { createStyle } from "../src/render/style.js";
import { tempDir } from "./support/tern.js";

const promptServer = new URL("../../mcp/test/support/prompt-server.mjs", import.meta.url).pathname;
/** Only a ceiling for a loaded machine: the tests wait for both servers to be up. */
const STARTUP_CEILING_MS = 120_000;
let manager: McpManager;

beforeAll(async () => {
  manager = new McpManager(
    { notes: nodeServer(promptServer), everything: nodeServer(everythingBin) },
    { startupTimeoutMs: STARTUP_CEILING_MS },
  );
  const statuses = await manager.waitForStartup();
  expect(statuses.map((s) => s.state)).toEqual(["ready", "ready"]);
}, STARTUP_CEILING_MS + 10_000);

afterAll(async () => {
  await manager?.close();
});

function context(mcp: McpManager) {
  const printed: string[] = [];
  const sent: { text: string; literal: boolean | undefined }[] = [];
  const ctx = {
    style: createStyle(false),
    busy: false,
    home: tempDir(),
    runtime: { mcp, cwd: tempDir() },
    print: (text: string) => printed.push(text),
    prompt: (text: string, _strategy: unknown, literal?: boolean) => sent.push({ text, literal }),
  } as unknown as SlashContext;
  return { ctx, printed, sent };
}

const REVIEW_USAGE = "/mcp__notes__review file=… [focus=…]";

describe("MCP prompts as slash commands", () => {
  it("/help lists each prompt with its arguments and description", async () => {
    const { ctx, printed } = context(manager);
    await runSlash("/help", ctx);
    expect(printed).toContain(`${REVIEW_USAGE}  Review a file`);
    expect(printed).toContain(
      "/mcp__everything__args-prompt city=… [state=…]  A prompt with two arguments, one required and one optional",
    );
    expect(printed).toContain("    city: Name of the city");
  });

  it("sends the prompts/get text as is, with key=value, positional and quoted arguments", async () => {
    const { ctx, printed, sent } = context(manager);
    await runSlash("/mcp__notes__review file=a.ts", ctx);
    await runSlash(`/mcp__notes__review "my file.ts" 'error  handling'`, ctx);
    await runSlash(`/mcp__notes__review focus="naming, mostly" @b.ts`, ctx);
    await runSlash("/mcp__everything__args-prompt Paris", ctx);
    expect(printed).toEqual([]);
    // The image the server sends is described, as in tool results; `@b.ts` is the server's text, not a file.
    expect(sent).toEqual([
      { text: "Please review a.ts for bugs.\n\n[image (image/png, 3 bytes) not shown]", literal: true },
      {
        text: "Please review my file.ts for error  handling.\n\n[image (image/png, 3 bytes) not shown]",
        literal: true,
      },
      {
        text: "Please review @b.ts for naming, mostly.\n\n[image (image/png, 3 bytes) not shown]",
        literal: true,
      },
      { text: "What's weather in Paris?", literal: true },
    ]);
  });

  it("a missing or unknown argument, an open quote or a server's error is one line, and nothing is sent", async () => {
    const { ctx, printed, sent } = context(manager);
    await runSlash("/mcp__notes__review focus=style", ctx);
    await runSlash("/mcp__notes__review file=a.ts colour=red", ctx);
    await runSlash(`/mcp__notes__review "a.ts`, ctx);
    await runSlash("/mcp__everything__resource-prompt resourceType=Nope resourceId=1", ctx);
    await runSlash("/mcp__notes__nope", ctx);
    await runSlash("/mcp__elsewhere__x", ctx);
    expect(sent).toEqual([]);
    expect(printed.slice(0, 3)).toEqual([
      `/mcp__notes__review needs file: ${REVIEW_USAGE}`,
      `/mcp__notes__review has no argument colour (it takes file, focus): ${REVIEW_USAGE}`,
      '/mcp__notes__review: a " is not closed',
    ]);
    expect(printed).toHaveLength(6);
    expect(printed[3]).toMatch(/^✗ \/mcp__everything__resource-prompt: .*Invalid resourceType: Nope/);
    expect(printed[4]).toBe('MCP server "notes" has no prompt /mcp__notes__nope; /help lists its prompts');
    expect(printed[5]).toBe("unknown command /mcp__elsewhere__x; /help lists them");
  });

  it("says so while a server is still starting", async () => {
    const starting = new McpManager({ slow: nodeServer(faultServer, ["hang"]) });
    try {
      starting.start();
      const { ctx, printed, sent } = context(starting);
      await runSlash("/mcp__slow__review", ctx);
      await runSlash("/mcp__other__review", ctx);
      await runSlash("/help", ctx);
      expect(sent).toEqual([]);
      expect(printed.slice(0, 2)).toEqual([
        'MCP server "slow" is still starting; /mcp__slow__review works when it is up (/mcp shows its state)',
        "no MCP prompt /mcp__other__review yet: MCP servers still starting (slow); /help lists the prompts when they are up",
      ]);
      expect(printed.at(-1)).toBe("MCP servers still starting (their prompts come later): slow");
    } finally {
      await starting.close();
    }
  });
});
