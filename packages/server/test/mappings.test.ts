// The two protocol mappings on hand-written canonical events: the channels a plain run does not
// reach (phase, compact, inject, task_complete, compaction, errors, aborts), written out literally.
import type { AgentEvent } from "@tern/agent";
import { emptyUsage } from "@tern/ai";
import { describe, expect, it } from "vitest";
import { CopilotMapper } from "../src/mappings/copilot-events.js";
import { FimMapper } from "../src/mappings/fim-sse.js";
import type { ServerEvent } from "../src/types.js";

const usage = { ...emptyUsage(), input: 10, cacheRead: 5, output: 7, totalTokens: 22 };

const synthesisCall: ServerEvent = {
  type: "model_call_start",
  callId: "k1",
  purpose: "synthesis",
  model: "m",
  provider: "p",
  timestamp: 0,
};

const run: ServerEvent[] = [
  { type: "agent_start", runId: "r1", timestamp: 0 },
  { type: "phase", phase: "selecting_tools", detail: { totalTools: 14 } },
  { type: "turn_start", turn: 1, timestamp: 0 },
  { type: "compaction_start", reason: "threshold", tokensBefore: 900, messagesBefore: 12 },
  {
    type: "compaction_end",
    reason: "threshold",
    tokensBefore: 900,
    tokensAfter: 300,
    messagesBefore: 12,
    messagesKept: 4,
  },
  { type: "inject", kind: "reflection", content: "Step back and check your plan." },
  { type: "message_end", message: { role: "user", content: "Step back and check your plan.", timestamp: 0 } },
  { type: "inject", kind: "steering", content: "use the cache" },
  { type: "message_end", message: { role: "user", content: "use the cache", timestamp: 0 } },
  { type: "task_complete", summary: "all done" },
  {
    type: "agent_end",
    messages: [],
    answer: "partial",
    usage,
    iterations: 1,
    elapsedMs: 1234,
    stopReason: "aborted",
  },
];

describe("FIM One SSE mapping", () => {
  it("maps phase, compaction, injections and an aborted run's end", () => {
    const mapper = new FimMapper();
    expect(run.flatMap((event) => mapper.map(event))).toEqual([
      { event: "phase", data: { phase: "selecting_tools", total_tools: 14 } },
      { event: "step", data: { type: "thinking", status: "start", iteration: 1 } },
      { event: "compact", data: { original_messages: 12, kept_messages: 4 } },
      {
        event: "inject",
        data: { type: "inject", content: "Step back and check your plan.", kind: "reflection" },
      },
      { event: "inject", data: { type: "inject", content: "use the cache", kind: "steering" } },
      { event: "step", data: { type: "answer", status: "start" } },
      { event: "answer", data: { status: "start" } },
      { event: "answer", data: { status: "delta", content: "partial" } },
      { event: "answer", data: { status: "done" } },
      {
        event: "done",
        data: {
          answer: "partial",
          iterations: 1,
          elapsed: 1.23,
          usage: { prompt_tokens: 15, completion_tokens: 7, total_tokens: 22, cost: 0 },
          stop_reason: "aborted",
        },
      },
    ]);
  });

  it("streams a synthesised answer once, and reports a failed tool as error", () => {
    const mapper = new FimMapper();
    const events: AgentEvent[] = [
      { type: "agent_start", runId: "r", timestamp: 0 },
      { type: "turn_start", turn: 1, timestamp: 0 },
      { type: "tool_execution_start", toolCallId: "c1", toolName: "read", args: { path: "a" } },
      {
        type: "tool_execution_end",
        toolCallId: "c1",
        toolName: "read",
        result: { content: [{ type: "text", text: "ENOENT" }], isError: true, terminate: false },
        isError: true,
        durationMs: 1500,
      },
      { type: "answer_start" },
      { type: "answer_delta", delta: "No " },
      { type: "answer_delta", delta: "file." },
      { type: "answer_end", answer: "No file." },
      {
        type: "agent_end",
        messages: [],
        answer: "No file.",
        usage,
        iterations: 1,
        elapsedMs: 10,
        stopReason: "stop",
      },
    ];
    const frames = events.flatMap((event) => mapper.map(event));
    expect(frames.map((f) => `${f.event}:${f.data.status ?? ""}`)).toEqual([
      "step:start",
      "step:start",
      "step:done",
      "step:start",
      "answer:start",
      "answer:delta",
      "answer:delta",
      "answer:done",
      "done:",
    ]);
    expect(frames[2]!.data).toEqual({
      type: "iteration",
      status: "done",
      iteration: 1,
      tool_call_id: "c1",
      tool_name: "read",
      tool_args: { path: "a" },
      reasoning: "",
      observation: null,
      error: "ENOENT",
      iter_elapsed: 1.5,
    });
  });
  it("gives a turn's words as text, joined as its reasoning ends with them (several text parts)", () => {
    const mapper = new FimMapper();
    mapper.map({ type: "agent_start", runId: "r", timestamp: 0 });
    const [frame] = mapper.map({
      type: "message_end",
      message: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Plan." },
          { type: "text", text: "First," },
          { type: "text", text: "then." },
          { type: "toolCall", id: "c1", name: "ls", arguments: {} },
        ],
        api: "faux",
        provider: "faux",
        model: "m",
        usage,
        stopReason: "toolUse",
        timestamp: 0,
      },
    } as AgentEvent);
    expect(frame!.data).toMatchObject({ reasoning: "Plan.\nFirst,\nthen.", text: "First,\nthen." });
  });
});

describe("Copilot event mapping", () => {
  it("maps the same run to Copilot events", () => {
    const mapper = new CopilotMapper("s1");
    expect(run.flatMap((event) => mapper.map(event))).toEqual([
      { type: "assistant.intent", data: { intent: "selecting_tools" }, ephemeral: true },
      { type: "session.compaction_start", data: { conversationTokens: 900 } },
      {
        type: "session.compaction_complete",
        data: {
          success: true,
          preCompactionTokens: 900,
          postCompactionTokens: 300,
          preCompactionMessagesLength: 12,
          messagesRemoved: 8,
        },
      },
      {
        type: "system.message",
        data: { role: "system", name: "tern.reflection", content: "Step back and check your plan." },
      },
      { type: "user.message", data: { content: "use the cache", delivery: "steering" } },
      { type: "session.task_complete", data: { summary: "all done", success: true } },
      { type: "abort", data: { reason: "user_initiated" } },
    ]);
  });

  it("gives every model call a turn pair and a synthesised answer its own message", () => {
    const mapper = new CopilotMapper("s1");
    const events: ServerEvent[] = [
      synthesisCall,
      { type: "answer_start" },
      { type: "answer_delta", delta: "Hi" },
      { type: "answer_end", answer: "Hi" },
      {
        type: "model_call_end",
        callId: "k1",
        purpose: "synthesis",
        model: "m",
        provider: "p",
        usage,
        durationMs: 40,
        stopReason: "stop",
      },
      { type: "idle", aborted: false },
    ];
    expect(events.flatMap((event) => mapper.map(event))).toEqual([
      { type: "assistant.turn_start", data: { turnId: "k1", model: "m" } },
      {
        type: "assistant.message_delta",
        data: { messageId: "k1-answer-1", deltaContent: "Hi" },
        ephemeral: true,
      },
      { type: "assistant.message", data: { messageId: "k1-answer-1", content: "Hi", toolRequests: [] } },
      {
        type: "assistant.usage",
        data: {
          model: "m",
          apiCallId: "k1",
          inputTokens: 10,
          outputTokens: 7,
          cacheReadTokens: 5,
          cacheWriteTokens: 0,
          cost: 0,
          duration: 40,
        },
        ephemeral: true,
      },
      { type: "assistant.turn_end", data: { turnId: "k1", model: "m" } },
      { type: "session.idle", data: { aborted: false }, ephemeral: true },
    ]);
  });
});

describe("plan mode in both mappings", () => {
  const stepUsage = { ...emptyUsage(), totalTokens: 40 };
  const planRun: ServerEvent[] = [
    { type: "agent_start", runId: "r", timestamp: 0 },
    { type: "message_end", message: { role: "user", content: "compare", timestamp: 0 } },
    { type: "phase", phase: "planning", detail: { round: 1 } },
    {
      type: "plan_start",
      round: 1,
      goal: "compare",
      steps: [
        { id: "a", task: "read a", dependencies: [], tool_hint: "read", model_hint: null },
        { id: "b", task: "sum", dependencies: ["a"], tool_hint: null, model_hint: "fast" },
      ],
      timestamp: 0,
    },
    { type: "plan_step_start", round: 1, stepId: "a", task: "read a", model: "m", timestamp: 0 },
    { type: "tool_execution_start", toolCallId: "t1", toolName: "read", args: { path: "a" }, stepId: "a" },
    {
      type: "plan_step_end",
      round: 1,
      stepId: "a",
      task: "read a",
      status: "failed",
      result: "",
      error: "boom",
      startedAt: 0,
      durationMs: 12,
      usage: stepUsage,
    },
    {
      type: "plan_step_end",
      round: 1,
      stepId: "b",
      task: "sum",
      status: "skipped",
      result: "",
      error: 'Not run: step "a" it depends on failed.',
      startedAt: 12,
      durationMs: 0,
      usage: emptyUsage(),
    },
    {
      type: "plan_analysis",
      round: 1,
      achieved: false,
      confidence: 0.2,
      reasoning: "a failed",
      final_answer: null,
    },
    { type: "plan_replan", round: 2, reason: "low_confidence" },
    { type: "answer_start" },
    { type: "answer_delta", delta: "Not achieved." },
    { type: "answer_end", answer: "Not achieved." },
    {
      type: "message_end",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "Not achieved." }],
        api: "faux",
        provider: "faux",
        model: "m",
        usage: emptyUsage(),
        stopReason: "stop",
        timestamp: 0,
      },
    },
    {
      type: "agent_end",
      messages: [],
      answer: "Not achieved.",
      usage,
      iterations: 1,
      elapsedMs: 20,
      stopReason: "stop",
    },
  ];

  it("maps plan events to FIM phase and step_progress frames", () => {
    const mapper = new FimMapper();
    const frames = planRun.flatMap((event) => mapper.map(event));
    expect(frames.filter((f) => f.event === "phase" || f.event === "step_progress")).toEqual([
      { event: "phase", data: { phase: "planning", round: 1 } },
      {
        event: "phase",
        data: { phase: "executing", round: 1, steps: (planRun[3] as { steps: unknown }).steps },
      },
      {
        event: "step_progress",
        data: {
          round: 1,
          step_id: "a",
          status: "running",
          task: "read a",
          model: "m",
          started_at: new Date(0).toISOString(),
        },
      },
      {
        event: "step_progress",
        data: {
          round: 1,
          step_id: "a",
          status: "failed",
          result: "",
          error: "boom",
          task: "read a",
          started_at: new Date(0).toISOString(),
          duration_ms: 12,
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 40, cost: 0 },
        },
      },
      expect.objectContaining({
        event: "step_progress",
        data: expect.objectContaining({ step_id: "b", status: "skipped" }),
      }),
      {
        event: "phase",
        data: {
          phase: "analyzing",
          round: 1,
          achieved: false,
          confidence: 0.2,
          reasoning: "a failed",
          final_answer: null,
          results: [
            { step_id: "a", status: "failed", result: "", error: "boom" },
            { step_id: "b", status: "skipped", result: "", error: 'Not run: step "a" it depends on failed.' },
          ],
        },
      },
      { event: "phase", data: { phase: "replanning", round: 2, reason: "low_confidence" } },
    ]);
    // The closing assistant message is the answer, not a thinking step; the answer streams once.
    // A step's tool call is an iteration frame naming its step.
    expect(frames.filter((f) => f.event === "step")).toEqual([
      {
        event: "step",
        data: {
          type: "iteration",
          iteration: 0,
          tool_call_id: "t1",
          tool_name: "read",
          tool_args: { path: "a" },
          reasoning: "",
          step_id: "a",
          status: "start",
        },
      },
      { event: "step", data: { type: "answer", status: "start" } },
    ]);
    expect(frames.filter((f) => f.event === "answer")).toHaveLength(3);
  });

  it("maps plan steps to Copilot sub-agent events and the answer to one assistant message", () => {
    const mapper = new CopilotMapper("s1");
    const bodies = planRun.flatMap((event) => mapper.map(event));
    const types = bodies.map((b) => b.type);
    expect(types).toEqual([
      "user.message",
      "assistant.intent",
      "session.plan_changed",
      "session.info",
      "subagent.started",
      "tool.execution_start",
      "subagent.failed",
      "subagent.failed",
      "session.info",
      "session.info",
      "assistant.message_delta",
      "assistant.message",
    ]);
    expect(bodies[4]?.data).toEqual({
      toolCallId: "plan-1-a",
      agentName: "step:a",
      agentDisplayName: "Step a",
      agentDescription: "read a",
      model: "m",
    });
    expect(bodies[5]?.data).toMatchObject({ toolCallId: "t1", parentToolCallId: "plan-1-a" });
    expect(bodies[6]?.data).toMatchObject({ toolCallId: "plan-1-a", error: "boom", durationMs: 12 });
    expect(bodies.at(-1)?.data).toMatchObject({ content: "Not achieved." });
  });
});

describe("model retries and a voided answer in both mappings", () => {
  const retry: ServerEvent = {
    type: "model_retry",
    callId: "k1",
    purpose: "turn",
    model: "m",
    provider: "p",
    attempt: 2,
    maxAttempts: 4,
    delayMs: 1500,
    errorKind: "rate_limit",
    errorMessage: "slow down",
    status: 429,
  };
  // A failed synthesis: what streamed is void, then the loop's own reply follows whole.
  const voided: ServerEvent[] = [
    { type: "answer_start" },
    { type: "answer_delta", delta: "Half an ans" },
    { type: "error", source: "policy", message: "Answer synthesis failed: cut off" },
    { type: "answer_start" },
    { type: "answer_delta", delta: "The loop's reply." },
    { type: "answer_end", answer: "The loop's reply.", error: "Answer synthesis failed: cut off" },
  ];

  it("sends a retry as a FIM retrying phase, and restarts the answer after a failed synthesis", () => {
    const mapper = new FimMapper();
    expect(mapper.map(retry)).toEqual([
      {
        event: "phase",
        data: {
          phase: "retrying",
          purpose: "turn",
          attempt: 2,
          max_attempts: 4,
          delay_ms: 1500,
          error_kind: "rate_limit",
          error_message: "slow down",
          status: 429,
        },
      },
    ]);
    expect(voided.flatMap((event) => mapper.map(event)).filter((f) => f.event === "answer")).toEqual([
      { event: "answer", data: { status: "start" } },
      { event: "answer", data: { status: "delta", content: "Half an ans" } },
      { event: "answer", data: { status: "start" } },
      { event: "answer", data: { status: "delta", content: "The loop's reply." } },
      { event: "answer", data: { status: "done", error: "Answer synthesis failed: cut off" } },
    ]);
  });

  it("restarts the FIM answer when it ends on a fallback its deltas do not add up to (a plan's synthesis)", () => {
    const mapper = new FimMapper();
    const frames = [
      { type: "answer_start" },
      { type: "answer_delta", delta: "Half" },
      { type: "answer_end", answer: "Step a found 3 files.", error: "the synthesis was empty" },
    ].flatMap((event) => mapper.map(event as ServerEvent));
    expect(frames.filter((f) => f.event === "answer").map((f) => f.data)).toEqual([
      { status: "start" },
      { status: "delta", content: "Half" },
      { status: "start" },
      { status: "delta", content: "Step a found 3 files." },
      { status: "done", error: "the synthesis was empty" },
    ]);
  });

  it("sends a retry as a Copilot session.warning, and the fallback as the final assistant.message", () => {
    const mapper = new CopilotMapper("s1");
    mapper.map(synthesisCall);
    expect(mapper.map(retry)).toEqual([
      {
        type: "session.warning",
        data: {
          warningType: "model_retry",
          message: "Model call failed (429 rate_limit: slow down); retrying in 1.5 s, attempt 2 of 4",
        },
      },
    ]);
    const events = voided.flatMap((event) => mapper.map(event));
    const messages = events.filter((e) => e.type === "assistant.message");
    expect(messages).toEqual([
      {
        type: "assistant.message",
        data: { messageId: "k1-answer-2", content: "The loop's reply.", toolRequests: [] },
      },
    ]);
    const deltas = events.filter((e) => e.type === "assistant.message_delta").map((e) => e.data);
    expect(deltas).toEqual([
      { messageId: "k1-answer-1", deltaContent: "Half an ans" },
      { messageId: "k1-answer-2", deltaContent: "The loop's reply." },
    ]);
  });
});
