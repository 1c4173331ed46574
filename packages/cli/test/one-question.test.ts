// Permission questions asked at once (parallel plan steps) reach the person one at a time, and a
// question whose run was aborted while it waited is denied without being asked.
import type { PermissionAnswer, PermissionRequest } from "@tern/tools";
import { describe, expect, it } from "vitest";
import { oneQuestionAtATime } from "../src/runtime/one-question.js";

function request(toolCallId: string, signal = new AbortController().signal): PermissionRequest {
  return {
    toolName: "bash",
    toolCallId,
    args: {},
    kind: "exec",
    mode: "ask",
    summary: "bash",
    suggestedRules: [],
    signal,
  };
}

describe("oneQuestionAtATime", () => {
  it("asks the second question only after the first is answered", async () => {
    const open: { id: string; answer: (a: PermissionAnswer) => void }[] = [];
    const ask = oneQuestionAtATime(
      (r) => new Promise<PermissionAnswer>((answer) => open.push({ id: r.toolCallId, answer })),
    );
    const first = ask(request("a"));
    const second = ask(request("b"));
    await Promise.resolve();
    await Promise.resolve();
    expect(open.map((q) => q.id)).toEqual(["a"]);
    open[0]?.answer(true);
    expect(await first).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(open.map((q) => q.id)).toEqual(["a", "b"]);
    open[1]?.answer(false);
    expect(await second).toBe(false);
  });

  it("denies a waiting question whose run was aborted, and survives an asker that throws", async () => {
    const asked: string[] = [];
    let release: (a: PermissionAnswer) => void = () => {};
    const ask = oneQuestionAtATime((r) => {
      asked.push(r.toolCallId);
      if (r.toolCallId === "boom") throw new Error("no terminal");
      return new Promise<PermissionAnswer>((resolve) => (release = resolve));
    });
    await expect(ask(request("boom"))).rejects.toThrow("no terminal");
    const controller = new AbortController();
    const first = ask(request("a"));
    const waiting = ask(request("b", controller.signal));
    controller.abort();
    await new Promise((resolve) => setImmediate(resolve)); // "a" is being asked now
    release(true);
    expect(await first).toBe(true);
    expect(await waiting).toEqual({ allow: false, reason: "the run was aborted" });
    expect(asked).toEqual(["boom", "a"]);
  });
});
