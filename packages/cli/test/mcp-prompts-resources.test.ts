// MCP resources as `@SERVER:URI` attachments and MCP prompts as chat slash commands, through the
// built `tern` against real MCP servers (the prompt server of @tern/mcp's tests: the prompt
// "review", the text resource notes://today and the binary notes://logo; and
// fixtures/mcp-resource-server.mjs: a text past the cap, an empty read) and a scripted model:
// what the model receives, and the warning or line for each bad reference or argument.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { wireMessages } from "@tern/ai/testing";
import { MAX_ATTACHED_TEXT_BYTES } from "@tern/tools";
import { beforeAll, describe, expect, it } from "vitest";
import { nodeServer } from "../../mcp/test/support/servers.js";
import { startChat, terminalIt } from "./support/chat-terminal.js";
import { textReply } from "./support/replies.js";
import { scriptedModelEnv, startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, tempDir } from "./support/tern.js";

beforeAll(ensureBuilt);

const promptServer = new URL("../../mcp/test/support/prompt-server.mjs", import.meta.url).pathname;
const resourceServer = new URL("./fixtures/mcp-resource-server.mjs", import.meta.url).pathname;

/** A workspace whose --mcp-config file names the prompt server "notes" and the resource server "big". */
function workspace() {
  const work = tempDir();
  const config = join(work, "mcp.json");
  const servers = { notes: nodeServer(promptServer), big: nodeServer(resourceServer) };
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  return { work, config };
}

function firstUserText(body: unknown): unknown {
  return wireMessages(body).find((message) => message.role === "user")?.content;
}

/** `tern run PROMPT` with both servers; the model answers `answer` (and again for the completion check). */
async function runWithServers(prompt: string, answer: string) {
  const { work, config } = workspace();
  const model = await startScriptedModel([textReply(answer), textReply(`${answer} Checked.`)]);
  const result = await runTern(["run", "--tools", "none", "--mcp-config", config, prompt], {
    env: scriptedModelEnv(model),
    cwd: work,
  });
  expect(result.code, result.stderr).toBe(0);
  return { result, sent: firstUserText(model.requests[0]!.body) };
}

describe("@SERVER:URI in tern run", () => {
  it("attaches the resource's text for the model, describes a binary one, and keeps @word:thing text", async () => {
    const prompt = "@notes:notes://today summarize; logo: @notes:notes://logo. mail me@x:y or @user:pass";
    const { result, sent } = await runWithServers(prompt, "Milk.");
    expect(sent).toBe(
      `${prompt}\n\n<resource server="notes" uri="notes://today">\nbuy milk-7731\n</resource>\n\n` +
        "[resource notes://logo (application/octet-stream, 4 bytes) not shown]",
    );
    // Not a configured server: a plain mention, looked up as a file as before.
    expect(result.stderr).toContain(
      '@user:pass was not attached: user:pass: no such file, and no MCP server is named "user" (configured: notes, big)',
    );
  });

  it("cuts a long text at the files' cap, with a note", async () => {
    const { sent } = await runWithServers("skim @big:big://text", "Long.");
    const text = sent as string;
    expect(text.startsWith(`skim @big:big://text\n\n<resource server="big" uri="big://text">\nxxx`)).toBe(
      true,
    );
    expect(text).not.toContain("the end");
    expect(
      text.endsWith(
        `</resource>\n[cut: the resource has 100050 bytes; only the first ${MAX_ATTACHED_TEXT_BYTES} are attached]`,
      ),
    ).toBe(true);
    const body = text.slice(text.indexOf('">\n') + 3, text.indexOf("\n</resource>"));
    expect(body).toBe("x".repeat(MAX_ATTACHED_TEXT_BYTES));
  });

  it("warns about an unknown or empty resource and still runs the rest of the prompt", async () => {
    const prompt = "read @notes:notes://missing and @big:big://none then say done";
    const { result, sent } = await runWithServers(prompt, "Done.");
    expect(result.stderr).toMatch(
      /@notes:notes:\/\/missing was not attached: notes:notes:\/\/missing: .*notes:\/\/missing.* \(it stays in the prompt as text\)/,
    );
    expect(result.stderr).toContain(
      "@big:big://none was not attached: big:big://none: the server sent no contents (it stays in the prompt as text)",
    );
    expect(sent).toBe(prompt);
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
