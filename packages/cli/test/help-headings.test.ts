// Help texts a daily user reads: each option under the heading it belongs to, and the environment
// variables a command honours listed in its own help.
import { beforeAll, expect, it } from "vitest";
import { ensureBuilt, runTern } from "./support/tern.js";

beforeAll(ensureBuilt);

/** The heading (an unindented line ending in ":") a line of `text` sits under. */
function headingOf(text: string, pattern: RegExp): string | undefined {
  let heading: string | undefined;
  for (const line of text.split("\n")) {
    if (/^\S.*:$/.test(line) || /^\S[^:]*:\s*\(/.test(line) || /^MCP servers/.test(line)) heading = line;
    if (pattern.test(line)) return heading;
  }
  return undefined;
}

it("run --help puts --store and --debug under their own heading, not under MCP servers", async () => {
  const { code, stdout } = await runTern(["run", "--help"]);
  expect(code).toBe(0);
  expect(headingOf(stdout, /^\s+--store URL/)).toBe("Sessions and diagnostics:");
  expect(headingOf(stdout, /^\s+--debug/)).toBe("Sessions and diagnostics:");
  expect(headingOf(stdout, /^\s+--no-mcp/)).toMatch(/^MCP servers/);
  expect(stdout).toMatch(/-c, --continue/);
});

it("mcp --help lists the environment variables tern mcp honours", async () => {
  const { code, stdout } = await runTern(["mcp", "--help"]);
  expect(code).toBe(0);
  expect(stdout).toMatch(/MCP_TIMEOUT \(milliseconds\)/);
  expect(stdout).toMatch(/TERN_HOME/);
});
