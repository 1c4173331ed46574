// Tool names within the providers' limits, deterministic, and unique across servers.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assignToolNames, MAX_TOOL_NAME_LENGTH, mcpToolName } from "../src/names.js";

const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

describe("MCP tool names", () => {
  it("are mcp__<server>__<tool> with other characters replaced", () => {
    expect(mcpToolName("github", "create_issue")).toBe("mcp__github__create_issue");
    expect(mcpToolName("my.server", "tool/with spaces")).toBe("mcp__my_server__tool_with_spaces");
    expect(mcpToolName("", "")).toBe("mcp______");
  });

  it("cut long names to 64 characters with a hash of the original", () => {
    const long = mcpToolName("server", "x".repeat(100));
    expect(long).toHaveLength(MAX_TOOL_NAME_LENGTH);
    expect(long).toMatch(/^mcp__server__x+_[0-9a-f]{8}$/);
    expect(mcpToolName("server", `${"x".repeat(99)}y`)).not.toBe(long);
  });

  it("always fit the providers' pattern, are unique, and do not depend on input order", () => {
    const part = fc.string({ maxLength: 80 });
    fc.assert(
      fc.property(fc.array(fc.record({ server: part, tool: part }), { maxLength: 20 }), (requests) => {
        const unique = [...new Map(requests.map((r) => [`${r.server}\u0000${r.tool}`, r])).values()];
        const names = assignToolNames(unique);
        for (const assigned of names) expect(assigned.name).toMatch(PROVIDER_NAME);
        expect(new Set(names.map((n) => n.name)).size).toBe(unique.length);
        expect(assignToolNames([...unique].reverse())).toEqual(names);
      }),
    );
  });

  it("rename the later of two clashing tools and say why", () => {
    const names = assignToolNames([
      { server: "a_b", tool: "run" },
      { server: "a.b", tool: "run" },
    ]);
    expect(names[0]).toEqual({ server: "a.b", tool: "run", name: "mcp__a_b__run" });
    expect(names[1]!.name).toMatch(/^mcp__a_b__run_[0-9a-f]{8}$/);
    expect(names[1]!.note).toBe(
      'renamed from mcp__a_b__run: that name is taken by tool "run" of server "a.b"',
    );
  });
});
