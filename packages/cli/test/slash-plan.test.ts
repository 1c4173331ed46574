// `/plan TASK` in tern chat sends TASK with the plan strategy; without a task it says how to use it,
// and while the agent works it waits like the other commands.
import type { RunStrategy } from "@tern/agent";
import { describe, expect, it } from "vitest";
import { runSlash, SLASH_HELP, type SlashContext } from "../src/chat/slash.js";
import { createStyle } from "../src/render/style.js";

function context(busy = false) {
  const printed: string[] = [];
  const sent: [string, RunStrategy][] = [];
  const ctx = {
    style: createStyle(false),
    busy,
    print: (text: string) => printed.push(text),
    prompt: (text: string, strategy: RunStrategy) => sent.push([text, strategy]),
  } as unknown as SlashContext;
  return { ctx, printed, sent };
}

describe("/plan", () => {
  it("sends the task as a plan", async () => {
    const { ctx, sent } = context();
    await runSlash("/plan compare the two loaders", ctx);
    expect(sent).toEqual([["compare the two loaders", "plan"]]);
  });

  it("explains itself without a task, and waits while the agent works", async () => {
    const idle = context();
    await runSlash("/plan", idle.ctx);
    expect(idle.printed).toEqual(["usage: /plan TASK"]);
    const busy = context(true);
    await runSlash("/plan x", busy.ctx);
    expect(busy.sent).toEqual([]);
    expect(busy.printed[0]).toMatch(/waits until the agent is idle/);
    expect(SLASH_HELP.some((line) => line.startsWith("/plan TASK"))).toBe(true);
  });
});
