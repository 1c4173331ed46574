// model_call_end is built once (model-call.ts) for the loop's calls and for structured calls alike;
// the structured call's version used to drop errorKind, so a failed plan or tool-selection call
// could not be told apart from any other failure.
import { stream } from "@tern/ai";
import { createFaux } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { callModel } from "../src/model-call.js";
import type { AgentEvent } from "../src/types.js";
import { visibleStructuredCall } from "../src/visible-structured-call.js";

const schema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } as const;

function recorder() {
  const events: AgentEvent[] = [];
  let id = 0;
  return {
    events,
    emit: async (event: AgentEvent) => void events.push(event),
    now: () => 1000,
    ids: () => `call-${++id}`,
  };
}

describe("model_call_end", () => {
  it("carries errorKind from a failed structured call, as it does from a loop call", async () => {
    const failure = { error: { kind: "auth" as const, message: "bad key" }, content: [] };
    const faux = createFaux({ replies: [failure, failure, failure, failure] });
    const structured = recorder();
    const call = visibleStructuredCall(
      {
        ...structured,
        streamFn: stream,
        streamOptions: {},
        signal: new AbortController().signal,
      },
      faux.model,
      { messages: [] },
      { schema, name: "check", purpose: "route" },
    );
    await expect(call).rejects.toThrow(/auth/);
    const loop = recorder();
    await callModel({
      model: faux.model,
      context: { messages: [] },
      streamOptions: {},
      env: { ...loop, streamFn: stream },
    });
    const ends = [...structured.events, ...loop.events].filter((e) => e.type === "model_call_end");
    expect(ends.length).toBeGreaterThanOrEqual(2);
    for (const end of ends)
      expect([end.stopReason, end.errorKind, end.errorMessage]).toEqual(["error", "auth", "bad key"]);
    expect(ends.map((e) => e.purpose)).toContain("route");
    expect(ends.at(-1)?.purpose).toBe("turn");
  });
});
