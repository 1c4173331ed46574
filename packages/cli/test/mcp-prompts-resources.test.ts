// MCP resources as `@SERVER:URI` attachments and MCP prompts as chat slash commands, through the
// built `tern` against a real MCP server (the prompt server of @tern/mcp's tests: the prompt
// "review", the text resource notes://today and the binary notes://logo) and a scripted model:
// what the model receives, and the warning or line for each bad reference or argument.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { nodeServer } from "../../mcp/test/support/servers.js";
import { startChat, terminalIt } from "./support/chat-terminal.js";
import { textReply, wireMessages } from "./support/openai-script.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

const promptServer = new URL("../../mcp/test/support/prompt-server.mjs", import.meta.url).pathname;

/** A workspace whose --mcp-config file names the prompt server "notes". */
function workspace() {
  const work = tempDir();
  const config = join(work, "mcp.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { notes: nodeServer(promptServer) } }));
  return { work, config };
}

function firstUserText(body: unknown): unknown {
  return wireMessages(body).find((message) => message.role === "user")?.content;
}

describe("@SERVER:URI in tern run", () => {
  it("attaches the resource's text for the model, describes a binary one, and keeps @word:thing text", async () => {
    const { work, config } = workspace();
    const server = await startScriptedModel([textReply("Milk."), textReply("Milk, checked.")]);
    const prompt = "@notes:notes://today summarize; logo: @notes:notes://logo. mail me@x:y or @user:pass";
    const result = await runTern(["run", "--tools", "none", "--mcp-config", config, prompt], {
      env: scriptedModelEnv(server),
      cwd: work,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(firstUserText(server.requests[0]!.body)).toBe(
      `${prompt}\n\n<resource server="notes" uri="notes://today">\nbuy milk-7731\n</resource>\n\n` +
        "[resource notes://logo (application/octet-stream, 4 bytes) not shown]",
    );
    // Not a configured server: a plain mention, looked up as a file as before.
    expect(result.stderr).toContain(
      '@user:pass was not attached: user:pass: no such file, and no MCP server is named "user" (configured: notes)',
    );
  });

  it("warns about an unknown resource and still runs the rest of the prompt", async () => {
    const { work, config } = workspace();
    const server = await startScriptedModel([textReply("Done."), textReply("Done, checked.")]);
    const prompt = "read @notes:notes://missing then say done";
    const result = await runTern(["run", "--tools", "none", "--mcp-config", config, prompt], {
      env: scriptedModelEnv(server),
      cwd: work,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /@notes:notes:\/\/missing was not attached: notes:notes:\/\/missing: .*notes:\/\/missing.* \(it stays in the prompt as text\)/,
    );
    expect(firstUserText(server.requests[0]!.body)).toBe(prompt);
    expect(result.stdout).toContain("Done.");
  });
});

terminalIt(
  "tern chat: @notes:URI attaches, /mcp__notes__review sends the prompt's text, a missing argument sends nothing",
  async () => {
    const { work, config } = workspace();
    const server = await startScriptedModel([textReply("Bought."), textReply("Reviewed.")]);
    const tmux = startChat(["--tools", "none", "--mcp-config", config], scriptedModelEnv(server), work);
    await tmux.waitFor(/tern chat · llamacpp\/test-model/);

    // Reading the resource waits for the server, so its prompts are commands after this turn.
    tmux.type("what to buy? @notes:notes://today", "Enter");
    await tmux.waitFor(/Bought\./);
    expect(tmux.capture()).toMatch(/attached notes:notes:\/\/today/);
    expect(firstUserText(server.requests[0]!.body)).toBe(
      'what to buy? @notes:notes://today\n\n<resource server="notes" uri="notes://today">\nbuy milk-7731\n</resource>',
    );

    tmux.type("/mcp__notes__review focus=naming", "Enter");
    await tmux.waitFor(/\/mcp__notes__review needs file: \/mcp__notes__review file=… \[focus=…\]/);
    expect(server.requests).toHaveLength(1);

    tmux.type('/mcp__notes__review file="src/a b.ts"', "Enter");
    await tmux.waitFor(/Reviewed\./);
    const users = wireMessages(server.requests[1]!.body).filter((m) => m.role === "user");
    expect(users.at(-1)!.content).toBe(
      "Please review src/a b.ts for bugs.\n\n[image (image/png, 3 bytes) not shown]",
    );
    tmux.type("/exit", "Enter");
    expect(await tmux.exitCode()).toBe(0);
  },
);
