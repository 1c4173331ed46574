import { describe, expect, it } from "vitest";
import type { AssistantMessage, Message } from "../src/index.js";
import { createFaux, emptyUsage, estimateMessageTokens, estimateTextTokens } from "../src/index.js";
import { prepareReplay } from "../src/replay.js";

const model = createFaux({ id: "replay-model" }).model;
const assistant = (
  content: AssistantMessage["content"],
  extra: Partial<AssistantMessage> = {},
): AssistantMessage => ({
  role: "assistant",
  content,
  api: "faux",
  provider: "faux",
  model: "replay-model",
  usage: emptyUsage(),
  stopReason: "toolUse",
  timestamp: 1,
  ...extra,
});
const result = (id: string): Message => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "t",
  content: [{ type: "text", text: `r${id}` }],
  isError: false,
  timestamp: 2,
});
const call = (id: string) => ({ type: "toolCall" as const, id, name: "t", arguments: {} });
const user: Message = { role: "user", content: "go", timestamp: 0 };

describe("prepareReplay", () => {
  it("pairs every call with its result, in call order, and fills dangling calls", () => {
    const messages: Message[] = [
      user,
      assistant([call("a"), call("b"), call("c")]),
      result("b"),
      result("a"),
      result("zz"),
    ];
    const out = prepareReplay(messages, model);
    expect(out.map((m) => (m.role === "toolResult" ? m.toolCallId : m.role))).toEqual([
      "user",
      "assistant",
      "a",
      "b",
      "c",
    ]);
    expect(out[4]).toMatchObject({ isError: true, toolCallId: "c" });
  });

  it("drops empty failed turns and strips another model's thinking and signatures", () => {
    const failed = assistant([], { stopReason: "error", errorMessage: "x" });
    const foreign = assistant(
      [
        { type: "thinking", thinking: "hmm", signature: "sig" },
        { type: "text", text: "hi", signature: "msg_1" },
      ],
      { model: "other", stopReason: "stop" },
    );
    const out = prepareReplay([user, failed, foreign], model);
    expect(out).toHaveLength(2);
    expect((out[1] as AssistantMessage).content).toEqual([{ type: "text", text: "hi" }]);
    const own = assistant([{ type: "thinking", thinking: "hmm", signature: "sig" }], { stopReason: "stop" });
    expect(prepareReplay([user, own], model)[1]).toBe(own);
  });
});

describe("token estimates", () => {
  it("weighs CJK more than Latin text", () => {
    expect(estimateTextTokens("")).toBe(0);
    expect(estimateTextTokens("abcdefgh")).toBe(2);
    expect(estimateTextTokens("你好世界")).toBe(4);
    expect(estimateTextTokens("你好 ok")).toBe(3);
  });

  it("caches per message object", () => {
    const message: Message = { role: "user", content: "a".repeat(400), timestamp: 0 };
    const first = estimateMessageTokens(message);
    (message as { content: string }).content = "";
    expect(estimateMessageTokens(message)).toBe(first);
    expect(estimateMessageTokens({ ...message })).toBeLessThan(first);
  });
});
