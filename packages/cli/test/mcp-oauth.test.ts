// `tern mcp login`/`logout` through the real bundle against a real OAuth authorization server
// (oauth2-mock-server) and a token-checking streamable-HTTP MCP server: the test reads the URL tern
// prints and plays the browser; then `tern run` calls a tool that echoes its bearer token, and the
// token appears in no output and no file under $TERN_HOME but the 0600 credentials file; a
// revoked login makes `tern mcp ls` say to run `tern mcp login`.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { followLogin, type OAuthFixture, startOAuthFixture } from "../../mcp/test/support/oauth.js";
import { textReply, toolReply } from "./support/replies.js";
import { startScriptedModel } from "./support/scripted-model.js";
import { ensureBuilt, runTern, spawnTern, tempDir, ternEnv } from "./support/tern.js";

beforeAll(ensureBuilt);

let fixture: OAuthFixture | undefined;
afterEach(async () => {
  await fixture?.stop();
});

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("tern mcp login", () => {
  // Five tern processes in a row: the ceiling is for a hang on a loaded machine.
  it("logs in through the printed URL, keeps the token out of every output and session file, logs out", {
    timeout: 240_000,
  }, async () => {
    fixture = await startOAuthFixture();
    const home = tempDir();
    const work = tempDir();
    writeFileSync(
      join(home, "mcp.json"),
      JSON.stringify({ mcpServers: { remote: { type: "http", url: fixture.url } } }),
    );
    const env = (baseUrl = "http://127.0.0.1:9") =>
      ternEnv({
        TERN_HOME: home,
        TERN_PROVIDER: "llamacpp",
        TERN_MODEL: "m",
        TERN_BASE_URL: `${baseUrl}/v1`,
      });

    const login = spawnTern(["mcp", "login", "remote"], { env: env(), cwd: work });
    await login.waitFor(/waiting for the browser/, "stdout");
    const url = /^ {2}(http\S+)$/m.exec(login.stdout)![1]!;
    expect((await followLogin(new URL(url))).status).toBe(200);
    const done = await login.done;
    expect(done.stdout).toMatch(/^logged in: remote$/m);
    expect(done.code).toBe(0);

    const authDir = join(home, "mcp-auth");
    expect(statSync(authDir).mode & 0o777).toBe(0o700);
    const [credentials] = filesUnder(authDir);
    expect(statSync(credentials!).mode & 0o777).toBe(0o600);
    const token = JSON.parse(readFileSync(credentials!, "utf8")).tokens.access_token as string;

    const ls = await runTern(["mcp", "ls", "--json"], { env: env(), cwd: work });
    const listed = JSON.parse(ls.stdout) as { servers: { state: string; protocolVersion?: string }[] };
    expect(listed.servers[0]).toMatchObject({ state: "ready", protocolVersion: "2025-11-25" });

    const model = await startScriptedModel([
      toolReply([{ name: "mcp__remote__echo_token", args: {} }]),
      textReply("Echoed."),
      textReply("Echoed."),
    ]);
    try {
      const run = await runTern(
        ["run", "--tools", "none", "--allow-tool", "mcp__remote__echo_token", "echo my token"],
        {
          env: env(model.baseUrl),
          cwd: work,
        },
      );
      expect(run.code).toBe(0);
      expect(fixture.accepted).toContain(token);
      expect(`${run.stdout}${run.stderr}`).not.toContain(token);
    } finally {
      await model.close();
    }
    const written = filesUnder(home).filter((file) => file !== credentials);
    expect(written.some((file) => file.endsWith(".jsonl"))).toBe(true);
    for (const file of written) expect(readFileSync(file, "utf8"), file).not.toContain(token);
    // The tool's answer did reach the session, with the token redacted.
    expect(written.map((file) => readFileSync(file, "utf8")).join("\n")).toContain("your token: [REDACTED]");

    fixture.refuse(token);
    fixture.revokeRefreshTokens();
    const revoked = await runTern(["mcp", "ls"], { env: env(), cwd: work });
    expect(revoked.stdout).toMatch(/^remote {2}failed/m);
    expect(revoked.stdout).toContain("run `tern mcp login remote`");

    const logout = await runTern(["mcp", "logout", "remote"], { env: env(), cwd: work });
    expect(logout.stdout).toMatch(/^(logged out|not logged in): remote$/m);
  });

  it("refuses a local server and an unknown name", async () => {
    const home = tempDir();
    writeFileSync(join(home, "mcp.json"), JSON.stringify({ mcpServers: { local: { command: "true" } } }));
    const env = ternEnv({ TERN_HOME: home });
    const local = await runTern(["mcp", "login", "local"], { env, cwd: home });
    expect(local.code).toBe(2);
    expect(local.stderr).toContain("OAuth is for remote servers");
    const unknown = await runTern(["mcp", "login", "nope"], { env, cwd: home });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no MCP server "nope"');
  });
});
