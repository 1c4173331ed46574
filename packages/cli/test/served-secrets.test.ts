// `tern serve` routes the OAuth tokens of remote MCP servers (openMcp's `onSecret`) to what the
// served engine keeps secret: the redactor every SSE and JSON-RPC frame passes, and the secrets
// list each session it opens adds (issue 27). Unit level: the same Redactor the engine uses.
import { Redactor } from "@tern/ai";
import { describe, expect, it } from "vitest";
import { servedSecrets } from "../src/runtime/served.js";

const KEY = "sk-served-key-0123456789";
const TOKEN = "mcp-oauth-access-token-abcdef";
const REFRESHED = "mcp-oauth-access-token-refreshed";

describe("servedSecrets", () => {
  it("hides a token handed over after start from frames and from the sessions opened after", () => {
    const { secrets, redactor, onSecret } = servedSecrets([KEY]);
    const frame = { text: `key ${KEY} token ${TOKEN}` };
    expect(redactor.json(frame).text).not.toContain(KEY);
    expect(redactor.json(frame).text).toContain(TOKEN);

    onSecret(TOKEN);
    onSecret(REFRESHED);
    onSecret(TOKEN);
    expect(redactor.json(frame).text).not.toContain(TOKEN);
    expect(redactor.json({ text: REFRESHED }).text).not.toContain(REFRESHED);
    // The engine reads this list each time it opens a session: the tokens are in it, once each.
    expect(secrets).toEqual([KEY, TOKEN, REFRESHED]);
  });

  it("adds to the output's redactor when there is one, so stdout and stderr hide the tokens too", () => {
    const output = new Redactor([]);
    const { redactor, onSecret } = servedSecrets([KEY], output);
    expect(redactor).toBe(output);
    onSecret(TOKEN);
    expect(output.json({ text: `${KEY} ${TOKEN}` }).text).not.toMatch(/sk-served|mcp-oauth/);
  });
});
