// A model call through redactStream: no delta, end event or final message carries the key, even
// when the model streams it across deltas; tool call arguments stay as the model wrote them.
import { describe, expect, it } from "vitest";
import { createFaux, fauxText, fauxThinking, fauxToolCall } from "../src/providers/faux.js";
import { redactStream } from "../src/redacted-stream.js";
import { REDACTED, Redactor } from "../src/redactor.js";
import { stream } from "../src/stream.js";
import type { AssistantEvent } from "../src/types.js";
import { keyLeaks } from "./support/key-leaks.js";

const KEY = "tern-test-key-Rd7c0Q2pVw91";
const ask = { messages: [{ role: "user" as const, content: "go", timestamp: 1 }] };

async function run(reply: Parameters<ReturnType<typeof createFaux>["push"]>[0], chunkSize: number) {
  const faux = createFaux({ replies: [reply], chunkSize });
  const events: AssistantEvent[] = [];
  const call = redactStream(stream, new Redactor([KEY]))(faux.model, ask, {});
  for await (const event of call) events.push(event);
  return { events, result: await call.result() };
}

const deltas = (events: AssistantEvent[], type: "text_delta" | "thinking_delta") =>
  events.map((event) => (event.type === type ? event.delta : "")).join("");

describe("redactStream", () => {
  it.each([1, 3, 4, 7, 50])("redacts a key and its base64 streamed %i characters a delta", async (size) => {
    const text = `key ${KEY}, base64 ${Buffer.from(KEY).toString("base64")}, end`;
    const { events, result } = await run({ content: [fauxThinking(`think ${KEY}`), fauxText(text)] }, size);
    const streamed = deltas(events, "text_delta");
    expect(keyLeaks(streamed, KEY)).toEqual([]);
    expect(keyLeaks(JSON.stringify(events), KEY)).toEqual([]); // the partial snapshots too
    // The last base64 characters also hold bits of what follows the key: they stay.
    expect(streamed).toMatch(/^key \[REDACTED\], base64 \[REDACTED\][A-Za-z0-9+/]?=*, end$/);
    expect(deltas(events, "thinking_delta")).toBe(`think ${REDACTED}`);
    const ends = events.filter((event) => event.type === "text_end" || event.type === "thinking_end");
    expect(ends.map((event) => ("content" in event ? event.content : ""))).toEqual([
      `think ${REDACTED}`,
      streamed,
    ]);
    expect(result.content).toEqual([
      { type: "thinking", thinking: `think ${REDACTED}` },
      { type: "text", text: streamed },
    ]);
    const done = events.at(-1)!;
    expect(done.type === "done" && done.message.content).toEqual(result.content);
  });

  it("redacts a provider error that echoes the key", async () => {
    const message = `401 Incorrect API key provided: ${KEY.slice(0, 6)}…; full ${encodeURIComponent(KEY)}`;
    const { events, result } = await run({ error: { kind: "auth", message: `${message} ${KEY}` } }, 4);
    expect(keyLeaks(result.errorMessage ?? "", KEY)).toEqual([]);
    expect(result.errorMessage).toContain(REDACTED);
    const error = events.at(-1)!;
    expect(error.type === "error" && error.error.errorMessage).toBe(result.errorMessage);
  });

  it("leaves tool call arguments alone: a tool may need the value", async () => {
    const { result } = await run({ content: [fauxToolCall("write", { content: KEY }, "c1")] }, 4);
    expect(result.content).toEqual([
      { type: "toolCall", id: "c1", name: "write", arguments: { content: KEY } },
    ]);
  });
});
