// Micro-compaction: old tool results become stubs; nothing else changes.
import type { ToolResultMessage } from "@tern/ai";
import { describe, expect, it } from "vitest";
import { microCompact } from "../../src/context/index.js";
import { assertPaired, result, textOf, turns, user } from "./support.js";

describe("microCompact", () => {
  it("stubs tool results older than the newest six, naming the tool and the size dropped", () => {
    const messages = [user("go"), ...turns(1, 8)];
    const frozen = JSON.stringify(messages);
    const out = microCompact(messages, 6);
    expect(out.stubbed).toBe(2);
    expect(JSON.stringify(messages)).toBe(frozen); // originals untouched
    const stub = out.messages[2] as ToolResultMessage;
    expect(stub).not.toBe(messages[2]);
    expect(stub).toMatchObject({ role: "toolResult", toolCallId: "c1", toolName: "read", isError: false });
    expect(textOf(stub)).toBe(
      '[compacted] The output of tool "read" was dropped to save context: 1,596 characters. Run the tool again if you need it.',
    );
    expect((out.messages[4] as ToolResultMessage).toolCallId).toBe("c2");
    expect(textOf(out.messages[4]!)).toContain("1,596 characters");
    for (let i = 5; i < messages.length; i++) expect(out.messages[i]).toBe(messages[i]);
    assertPaired(out.messages);
  });

  it("returns the same array when nothing is old enough, and leaves pinned, tiny and stubbed results", () => {
    const messages = [user("go"), ...turns(1, 6)];
    expect(microCompact(messages, 6).messages).toBe(messages);
    const pinned = { ...result("p", "x".repeat(5_000)), pinned: true };
    const tiny = result("t", "ok");
    const once = microCompact([pinned, tiny, ...turns(1, 7)], 6);
    expect(once.messages[0]).toBe(pinned);
    expect(once.messages[1]).toBe(tiny);
    expect(once.stubbed).toBe(1);
    const twice = microCompact(once.messages, 6);
    expect(twice.messages).toBe(once.messages);
  });
});
