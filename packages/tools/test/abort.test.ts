// Abort in a real agent run: the run ends with aborted results for the calls in flight, and what
// they started is gone (bash's sandbox with everything in it). Outcomes only, never elapsed time.

import { existsSync } from "node:fs";
import path from "node:path";
import { type AgentMessage, agentLoop } from "@tern/agent";
import type { ToolResultMessage } from "@tern/ai";
import { createFaux, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { files, workspace } from "./support.js";
import { hostProcesses, SANDBOX_SKIP_REASON, waitFor } from "./support-sandbox.js";

const SLEEPER = ["sleep", "77"];

function resultsIn(messages: readonly AgentMessage[]): ToolResultMessage[] {
  return messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}

describe("abort in an agent run", () => {
  it.skipIf(SANDBOX_SKIP_REASON !== undefined)(
    `ends sandboxed bash calls with an aborted result and kills their processes${SANDBOX_SKIP_REASON ? ` (${SANDBOX_SKIP_REASON})` : ""}`,
    async () => {
      const before = new Set(hostProcesses(SLEEPER));
      const ws = await workspace();
      const faux = createFaux({
        replies: [
          {
            content: [
              fauxToolCall("bash", { command: "setsid sleep 77 & touch started; sleep 77" }, "b1"),
              fauxToolCall("glob", { pattern: "**/*" }, "g1"),
            ],
          },
          "unreachable",
        ],
      });
      const controller = new AbortController();
      const run = agentLoop(
        [{ role: "user", content: "wait", timestamp: 0 }],
        { messages: [], tools: ws.tools },
        { model: faux.model },
        controller.signal,
      );
      // Reading the result drives the run.
      const finished = run.result();
      await waitFor(() => (existsSync(path.join(ws.root, "started")) ? true : undefined));
      controller.abort();
      const result = await finished;
      expect(result.stopReason).toBe("aborted");
      const bash = resultsIn(result.messages).find((r) => r.toolCallId === "b1");
      expect(bash?.isError).toBe(true);
      await waitFor(() => (hostProcesses(SLEEPER).some((pid) => !before.has(pid)) ? undefined : true));
    },
  );

  it("glob honours an abort that arrives as the call starts, with an aborted result", async () => {
    const ws = await workspace();
    const tree: Record<string, string> = {};
    for (let i = 0; i < 300; i++) tree[`d${i % 40}/e${i % 7}/f${i}.txt`] = "x";
    await files(ws.root, tree);
    const controller = new AbortController();
    const running = ws.call("glob", { pattern: "**/*.txt" }, controller.signal);
    controller.abort();
    const result = await running;
    expect(result.isError).toBe(true);
    expect(result.text).toBe("The search was aborted.");
  });
});
