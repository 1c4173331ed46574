// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are the configuration's own ${VAR} syntax
// Parsing the mcpServers format and merging the user, project and extra files. Every malformed
// file or entry is a problem naming the file and the server; the good entries still load.

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { parseMcpConfig } from "../src/config.js";
import { loadMcpConfig } from "../src/index.js";

const FILE = "/project/.mcp.json";

function parse(data: unknown, env: Record<string, string> = {}) {
  return parseMcpConfig(typeof data === "string" ? data : JSON.stringify(data), FILE, "project", env);
}

describe("parseMcpConfig", () => {
  it("reads stdio and remote servers in the Claude Code / Copilot CLI shape", () => {
    const parsed = parse({
      mcpServers: {
        fs: { command: "npx", args: ["-y", "server-fs", "."], env: { DEBUG: "1" }, cwd: "tools" },
        local: { type: "local", command: "srv" },
        github: { type: "http", url: "https://api.example.com/mcp", headers: { Authorization: "Bearer x" } },
        old: { type: "sse", url: "http://127.0.0.1:9000/sse" },
        bare: { url: "https://example.com/mcp" },
      },
    });
    expect(parsed.problems).toEqual([]);
    expect(parsed.servers.map((s) => [s.name, s.config])).toEqual([
      [
        "fs",
        {
          type: "stdio",
          command: "npx",
          args: ["-y", "server-fs", "."],
          env: { DEBUG: "1" },
          cwd: "/project/tools",
        },
      ],
      ["local", { type: "stdio", command: "srv", args: [], env: {} }],
      [
        "github",
        { type: "http", url: "https://api.example.com/mcp", headers: { Authorization: "Bearer x" } },
      ],
      ["old", { type: "sse", url: "http://127.0.0.1:9000/sse", headers: {} }],
      ["bare", { type: "http", url: "https://example.com/mcp", headers: {} }],
    ]);
    expect(parsed.servers.every((s) => s.scope === "project" && s.file === FILE)).toBe(true);
  });

  it("expands ${VAR} and ${VAR:-default}, and reports a missing variable for its server only", () => {
    const parsed = parse(
      {
        mcpServers: {
          gh: {
            type: "http",
            url: "${BASE:-https://gh.example}/mcp",
            headers: { Authorization: "Bearer ${TOKEN}" },
          },
          missing: { command: "srv", env: { KEY: "${NOT_SET}" } },
        },
      },
      { TOKEN: "t0k" },
    );
    expect(parsed.servers.map((s) => s.config)).toEqual([
      { type: "http", url: "https://gh.example/mcp", headers: { Authorization: "Bearer t0k" } },
    ]);
    expect(parsed.problems).toEqual([
      { file: FILE, server: "missing", message: expect.stringContaining("NOT_SET is not set") },
    ]);
  });

  it.each([
    ["not an object", "srv", "must be an object"],
    ["no command", { args: [] }, "`command` must be a non-empty string"],
    ["args not strings", { command: "srv", args: [1] }, "`args` must be an array of strings"],
    ["env not strings", { command: "srv", env: { A: 1 } }, "`env` must be an object of string values"],
    ["cwd not a string", { command: "srv", cwd: 3 }, "`cwd` must be a string"],
    ["unknown type", { type: "websocket", url: "ws://x" }, 'unknown `type` "websocket"'],
    ["bad url", { type: "http", url: "not a url" }, "`url` is not a URL"],
    ["file url", { type: "http", url: "file:///etc/passwd" }, "must be http or https"],
    ["headers not strings", { type: "http", url: "https://x", headers: { A: true } }, "`headers` must be"],
  ])("reports a malformed entry (%s) with file and server, keeping the others", (_label, entry, message) => {
    const parsed = parse({ mcpServers: { bad: entry, good: { command: "srv" } } });
    expect(parsed.servers.map((s) => s.name)).toEqual(["good"]);
    expect(parsed.problems).toEqual([
      { file: FILE, server: "bad", message: expect.stringContaining(message) },
    ]);
  });

  it.each([
    ["invalid JSON", "{ mcpServers: ", "not valid JSON"],
    ["an array", "[]", "must be a JSON object"],
    ["mcpServers not an object", { mcpServers: ["fs"] }, "`mcpServers` must be an object"],
  ])("reports a malformed file (%s) without a server", (_label, data, message) => {
    const parsed = parse(data);
    expect(parsed.servers).toEqual([]);
    expect(parsed.problems).toEqual([{ file: FILE, message: expect.stringContaining(message) }]);
  });

  it("treats a file without mcpServers as no servers", () => {
    expect(parse({ other: 1 })).toEqual({ servers: [], problems: [] });
  });
});

describe("loadMcpConfig", () => {
  function setup() {
    const root = mkdtempSync(join(tmpdir(), "tern-mcp-config-"));
    const home = join(root, "home");
    const project = join(root, "project");
    mkdirSync(home);
    mkdirSync(project);
    return { root, home, project };
  }

  it("merges user, project and extra files; a later file's server replaces an earlier one", async () => {
    const { root, home, project } = setup();
    writeFileSync(
      join(home, "mcp.json"),
      JSON.stringify({ mcpServers: { a: { command: "user-a" }, b: { command: "user-b" } } }),
    );
    writeFileSync(
      join(project, ".mcp.json"),
      JSON.stringify({ mcpServers: { b: { command: "project-b" } } }),
    );
    writeFileSync(
      join(root, "extra.json"),
      JSON.stringify({ mcpServers: { c: { url: "https://c.example/mcp" } } }),
    );
    const loaded = await loadMcpConfig({ home, projectDir: project, files: ["extra.json"], cwd: root });
    expect(loaded.problems).toEqual([]);
    expect(loaded.servers.map((s) => [s.name, s.scope])).toEqual([
      ["a", "user"],
      ["b", "project"],
      ["c", "extra"],
    ]);
    expect(loaded.servers[1]!.config).toMatchObject({ command: "project-b" });
    expect(loaded.shadowed.map((s) => [s.name, s.scope])).toEqual([["b", "user"]]);
  });

  it("expands ${VAR} from the env the host passes and never from the process's own", async () => {
    const { home } = setup();
    writeFileSync(
      join(home, "mcp.json"),
      JSON.stringify({ mcpServers: { a: { command: "${MCP_TEST_CMD}" } } }),
    );
    vi.stubEnv("MCP_TEST_CMD", "from-process");
    try {
      const unexpanded = await loadMcpConfig({ home });
      expect(unexpanded.servers).toEqual([]);
      expect(unexpanded.problems).toEqual([
        {
          file: join(home, "mcp.json"),
          server: "a",
          message: expect.stringContaining("MCP_TEST_CMD is not set"),
        },
      ]);
      const expanded = await loadMcpConfig({ home, env: { MCP_TEST_CMD: "from-host" } });
      expect(expanded.servers[0]!.config).toMatchObject({ command: "from-host" });
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("skips missing user and project files but reports a missing extra file and bad files", async () => {
    const { root, home, project } = setup();
    writeFileSync(join(project, ".mcp.json"), "{ oops");
    const loaded = await loadMcpConfig({ home, projectDir: project, files: ["nope.json"], cwd: root });
    expect(loaded.servers).toEqual([]);
    expect(loaded.problems).toEqual([
      { file: join(project, ".mcp.json"), message: expect.stringContaining("not valid JSON") },
      { file: join(root, "nope.json"), message: expect.stringContaining("cannot be read") },
    ]);
  });
});
