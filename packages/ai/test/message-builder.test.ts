import { describe, expect, it } from "vitest";
import { AssistantMessageEventStream } from "../src/event-stream.js";
import { AssistantMessageBuilder } from "../src/message-builder.js";
import { createFaux } from "../src/providers/faux.js";

/** Feeds `raw` to one tool call in chunks of `size` and returns each distinct partial arguments object seen. */
function streamArguments(raw: string, size: number) {
  const out = new AssistantMessageEventStream();
  const builder = new AssistantMessageBuilder(createFaux().model, out);
  builder.toolCallStart("0", "c1", "write");
  const seen: unknown[] = [];
  for (let at = 0; at < raw.length; at += size) {
    builder.toolCallArguments("0", raw.slice(at, at + size));
    const args = (builder.message.content[0] as { arguments: unknown }).arguments;
    if (seen.at(-1) !== args) seen.push(args);
  }
  return { message: builder.finish("stop"), seen };
}

describe("AssistantMessageBuilder tool arguments", () => {
  const content = "x".repeat(50_000);
  const raw = JSON.stringify({ path: "a.txt", content });

  it("parses 1-character chunks a logarithmic number of times, then strictly at the end", () => {
    const { message, seen } = streamArguments(raw, 1);
    expect(message.content[0]).toMatchObject({ arguments: { path: "a.txt", content } });
    // A parse per chunk would give ~50,000 distinct objects; growth-based parsing gives dozens.
    const parseCeiling = 100; // a count of parses, not a time
    expect(seen.length).toBeLessThan(parseCeiling);
    expect(seen.length).toBeGreaterThan(5);
  });

  it("shows partial arguments that grow toward the final ones", () => {
    const { seen } = streamArguments(raw, 7);
    const lengths = seen.map((args) => String((args as { content?: string }).content ?? "").length);
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    expect(lengths.at(-1)).toBeGreaterThan(content.length / 2);
  });

  it("keeps the strict end parse: invalid JSON is a parse error, not partial arguments", () => {
    const { message } = streamArguments('{"path": "a.txt", "content": tru', 1);
    expect(message.content[0]).toMatchObject({ parseError: expect.stringContaining("not valid JSON") });
  });
});
