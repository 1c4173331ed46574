// The loop-policy interface itself: where each hook runs, what a policy can change, and that a
// broken policy does not break the run.
import type { StreamFunction } from "@tern/ai";
import { createFaux, fauxToolCall } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { agentLoop, type LoopPolicy, userMessage } from "../../src/index.js";
import { iterationLimit } from "../../src/policies/iteration-limit.js";
import { collect, echoTool, outline, textOf, user } from "../helpers.js";
import { injects, ofType } from "./support.js";

describe("loop policies", () => {
  it("runs the hooks at their points, in order with the caller's seams", async () => {
    const log: string[] = [];
    const policy: LoopPolicy = {
      name: "recorder",
      start: (run) => {
        log.push(`start:${run.prompt}:${run.turn}`);
        return {
          beforeTurn: (r) => void log.push(`beforeTurn:${r.turn}`),
          beforeModelCall: (r) => void log.push(`beforeModelCall:${r.turn}`),
          tools: (tools) => {
            log.push(`tools:${tools.length}`);
            return tools;
          },
          afterToolBatch: (_r, batch) =>
            void log.push(`afterToolBatch:${batch.calls.length}:${batch.results.length}`),
          onFinalAnswer: (_r, message) => void log.push(`onFinalAnswer:${textOf(message)}`),
          onRunEnd: (_r, end) => void log.push(`onRunEnd:${end.stopReason}:${end.answer}`),
        };
      },
    };
    const faux = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: "a" })] }, "done"] });
    await agentLoop(
      [user("task")],
      { messages: [], tools: [echoTool()] },
      {
        model: faux.model,
        policies: [policy],
        prepareNextTurn: ({ turn }) => void log.push(`prepareNextTurn:${turn}`),
        transformContext: (messages) => {
          log.push("transformContext");
          return messages;
        },
      },
    ).result();
    expect(log).toEqual([
      "start:task:0",
      "beforeTurn:0",
      "prepareNextTurn:1",
      "beforeModelCall:1",
      "tools:1",
      "transformContext",
      "afterToolBatch:1:1",
      "beforeTurn:1",
      "prepareNextTurn:2",
      "beforeModelCall:2",
      "tools:1",
      "transformContext",
      "onFinalAnswer:done",
      "onRunEnd:stop:done",
    ]);
  });

  it("pins the run's prompt; the model gets it without the flag", async () => {
    const faux = createFaux({ replies: ["ok"] });
    const prompt = user("original request");
    const result = await agentLoop([prompt], { messages: [] }, { model: faux.model }).result();
    expect(result.messages[0]).toEqual({ ...prompt, pinned: true });
    expect(prompt).toEqual(user("original request")); // the caller's object is untouched
    expect(faux.requests[0]!.context.messages[0]).toEqual(prompt);
  });

  it("reports a throwing policy as an error event and goes on", async () => {
    const broken: LoopPolicy = {
      name: "broken",
      start: () => ({
        beforeModelCall: () => {
          throw new TypeError("oops");
        },
      }),
    };
    const faux = createFaux({ replies: ["fine"] });
    const events = await collect(
      agentLoop([user("q")], { messages: [] }, { model: faux.model, policies: [broken] }),
    );
    expect(ofType(events, "error")).toEqual([
      { type: "error", source: "policy", message: 'Policy "broken" failed: TypeError: oops' },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "agent_end", answer: "fine", stopReason: "stop" });
  });

  it("retries after a failed model call when a policy asks, once it has made room", async () => {
    const seen: string[] = [];
    const recover: LoopPolicy = {
      name: "recover",
      start: () => {
        let retried = false;
        return {
          onModelError: async (run, message) => {
            seen.push(message.errorMessage ?? "");
            if (retried) return undefined;
            retried = true;
            await run.replaceMessages([userMessage("compacted request", run.now())]);
            return { retry: true };
          },
        };
      },
    };
    const faux = createFaux({
      replies: [{ error: { kind: "context_overflow", message: "too long" } }, "worked"],
    });
    const events = await collect(
      agentLoop([user("q")], { messages: [] }, { model: faux.model, policies: [recover] }),
    );
    expect(seen).toEqual(["too long"]);
    expect(events.at(-1)).toMatchObject({
      type: "agent_end",
      answer: "worked",
      stopReason: "stop",
      iterations: 2,
    });
    expect(faux.requests[1]!.context.messages.map((m) => textOf(m))).toEqual(["compacted request"]);
    expect(ofType(events, "context_update")).toHaveLength(1);
  });

  it("offers only the filtered tools, and only those can run", async () => {
    const hide: LoopPolicy = { name: "hide", start: () => ({ tools: () => [] }) };
    const faux = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: "a" }, "c1")] }, "ok"] });
    const log: string[] = [];
    const result = await agentLoop(
      [user("q")],
      { messages: [], tools: [echoTool(log)] },
      { model: faux.model, policies: [hide] },
    ).result();
    expect(faux.requests[0]!.context.tools).toBeUndefined();
    expect(log).toEqual([]);
    expect(textOf(result.messages[2])).toBe('Tool "echo" not found. Available tools: none.');
  });

  it("makes auxiliary calls visible, counted, and outside the model adapter", async () => {
    const wrapped: string[] = [];
    const policy: LoopPolicy = {
      name: "aux",
      wrapStream:
        (next: StreamFunction): StreamFunction =>
        (model, context, options) => {
          wrapped.push(textOf(context.messages.at(-1)));
          return next(model, context, options);
        },
      start: () => ({
        onRunEnd: async (run) => {
          const reply = await run.callModel({ messages: [userMessage("summarise", run.now())] }, "summary");
          return { answer: textOf(reply) };
        },
      }),
    };
    const faux = createFaux({ replies: ["loop answer", "aux answer"] });
    const events = await collect(
      agentLoop([user("q")], { messages: [] }, { model: faux.model, policies: [policy] }),
    );
    expect(wrapped).toEqual(["q"]);
    expect(outline(events).slice(-3)).toEqual(["model_call_start", "model_call_end", "agent_end"]);
    const ends = ofType(events, "model_call_end");
    expect(ends.map((e) => e.purpose)).toEqual(["turn", "summary"]);
    const end = events.at(-1) as { answer: string; usage: { input: number } };
    expect(end.answer).toBe("aux answer");
    expect(end.usage.input).toBe(ends[0]!.usage.input + ends[1]!.usage.input);
  });

  it("lets beforeTurn end the run with its own answer", async () => {
    const faux = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: "a" })] }, "never"] });
    const events = await collect(
      agentLoop(
        [user("q")],
        { messages: [], tools: [echoTool()] },
        { model: faux.model, policies: [iterationLimit({ maxIterations: 1 })] },
      ),
    );
    expect(faux.requests).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      type: "agent_end",
      stopReason: "max_iterations",
      iterations: 1,
      answer: "I stopped after 1 step without reaching a final answer. Tools run:\n- echo: 1 call, succeeded",
    });
    expect(injects(events)).toHaveLength(0);
  });

  it("accepts a final answer given on the last allowed turn", async () => {
    const faux = createFaux({ replies: [{ content: [fauxToolCall("echo", { text: "a" })] }, "made it"] });
    const result = await agentLoop(
      [user("q")],
      { messages: [], tools: [echoTool()] },
      { model: faux.model, policies: [iterationLimit({ maxIterations: 2 })] },
    ).result();
    expect(result).toMatchObject({ stopReason: "stop", answer: "made it", iterations: 2 });
  });
});
