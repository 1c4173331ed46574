import { describe, expect, it } from "vitest";
import {
  type AssistantEvent,
  createFaux,
  fauxText,
  fauxThinking,
  fauxToolCall,
  stream,
} from "../src/index.js";
import { gate } from "../src/testing/index.js";

const context = { messages: [{ role: "user" as const, content: "hi", timestamp: 0 }] };

async function collect(iterable: AsyncIterable<AssistantEvent>) {
  const events: AssistantEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

describe("faux provider", () => {
  it("streams a text reply in token-sized deltas with estimated usage", async () => {
    const faux = createFaux({ replies: ["Hello there, world"] });
    const s = stream(faux.model, context);
    const events = await collect(s);
    expect(events.map((e) => e.type)).toEqual([
      "start",
      "text_start",
      "text_delta",
      "text_delta",
      "text_delta",
      "text_delta",
      "text_delta",
      "text_end",
      "done",
    ]);
    const message = await s.result();
    expect(message.content).toEqual([{ type: "text", text: "Hello there, world" }]);
    expect(message.stopReason).toBe("stop");
    expect(message.usage.input).toBeGreaterThan(0);
    expect(message.usage.output).toBe(5);
    expect(message.usage.cost.total).toBeGreaterThan(0);
    expect(faux.requests[0]?.context.messages).toEqual(context.messages);
  });

  it("streams thinking and tool calls, with arguments parsed as they form", async () => {
    const call = fauxToolCall("read", { path: "a.txt", lines: [1, 2] }, "c1");
    const faux = createFaux({ replies: [{ content: [fauxThinking("plan"), fauxText("ok"), call] }] });
    const s = stream(faux.model, context);
    const partials: unknown[] = [];
    for await (const event of s) {
      if (event.type === "toolcall_delta") partials.push(structuredClone(event.partial.content[2]));
    }
    const message = await s.result();
    expect(message.stopReason).toBe("toolUse");
    expect(message.content[2]).toEqual({
      type: "toolCall",
      id: "c1",
      name: "read",
      arguments: { path: "a.txt", lines: [1, 2] },
    });
    expect(partials.length).toBeGreaterThan(3);
    expect(partials[0]).toMatchObject({ arguments: {} });
  });

  it("lets a reply function see the request", async () => {
    const faux = createFaux({
      replies: [({ context: c, callIndex }) => `saw ${c.messages.length} at ${callIndex}`],
    });
    const message = await stream(faux.model, context).result();
    expect(message.content).toEqual([{ type: "text", text: "saw 1 at 0" }]);
  });

  it("ends with an error when its queue is empty", async () => {
    const faux = createFaux({ id: "empty-one" });
    const message = await stream(faux.model, context, { retry: { maxRetries: 0 } }).result();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain('no scripted reply left for model "empty-one"');
  });

  it("honours abort mid-stream and keeps the partial text", async () => {
    const faux = createFaux({ replies: ["a b c d e f g h i j k l"], tokenDelayMs: 5, chunkSize: 1 });
    const controller = new AbortController();
    const s = stream(faux.model, context, { signal: controller.signal });
    let deltas = 0;
    for await (const event of s) {
      if (event.type === "text_delta" && ++deltas === 3) controller.abort();
    }
    const message = await s.result();
    expect(message.stopReason).toBe("aborted");
    expect(message.content).toEqual([{ type: "text", text: "a b" }]);
  });

  it("holds a reply after its first deltas until released, and an abort ends the hold", async () => {
    const { until, release } = gate();
    const faux = createFaux({
      replies: [{ content: "abcdef", chunkSize: 1, holdAfter: { deltas: 2, until } }],
    });
    const s = stream(faux.model, context);
    const seen: string[] = [];
    let waiting = false;
    for await (const event of s) {
      if (event.type !== "text_delta") continue;
      seen.push(event.delta);
      if (seen.length === 2) {
        // Nothing past the held deltas arrives before the release.
        waiting = true;
        setTimeout(() => {
          waiting = false;
          release();
        }, 0);
      } else expect(waiting).toBe(false);
    }
    expect(seen.join("")).toBe("abcdef");

    const stuck = createFaux({
      replies: [{ content: "abcdef", chunkSize: 1, holdAfter: { deltas: 1, until: new Promise(() => {}) } }],
    });
    const controller = new AbortController();
    const cut = stream(stuck.model, context, { signal: controller.signal });
    for await (const event of cut) if (event.type === "text_delta") controller.abort();
    const message = await cut.result();
    expect(message.stopReason).toBe("aborted");
    expect(message.content).toEqual([{ type: "text", text: "a" }]);
  });

  it("plays scripted errors after streaming content", async () => {
    const faux = createFaux({ replies: [{ content: "part", error: { kind: "server", message: "boom" } }] });
    const message = await stream(faux.model, context).result();
    expect(message).toMatchObject({ stopReason: "error", errorKind: "server", errorMessage: "boom" });
    expect(message.content).toEqual([{ type: "text", text: "part" }]);
  });
});
