// Compaction without a loop: `compact()` over hand-built transcripts, the summariser a faux model.
// Unit sizes: see support.ts (a prompt "Fix the parser" is 8 tokens, a tool turn 414).
import { createFaux, type FauxRequest } from "@tern/ai/testing";
import { describe, expect, it } from "vitest";
import { type CompactOptions, compact } from "../../src/context/index.js";
import type { AgentMessage } from "../../src/types.js";
import { assertPaired, assistant, recorder, requestText, result, textOf, turns, user } from "./support.js";

const PREFIX = "The conversation before this point was compacted into this summary:\n\n";
// Budget 10 000 tokens: threshold at 8 000, tail of at most 2 000 tokens (four tool turns), micro-compaction off.
const BASE: CompactOptions = {
  budget: 10_000,
  keepRecentTokens: 2_000,
  keepToolResults: 100,
  summaryMaxTokens: 500,
};

function summariser(...replies: Parameters<ReturnType<typeof createFaux>["push"]>) {
  return createFaux({ replies });
}

function summaries(messages: AgentMessage[]): AgentMessage[] {
  return messages.filter((m) => textOf(m).startsWith(PREFIX));
}

describe("compact", () => {
  it("leaves a context under the threshold alone, without a model call or an event", async () => {
    const faux = summariser("never used");
    const log = recorder();
    const messages = [user("Fix the parser", true), ...turns(1, 19)]; // 8 + 19 x 414 = 7 874 tokens
    const out = await compact(messages, faux.model, undefined, {
      ...BASE,
      reason: "threshold",
      emit: log.emit,
    });
    expect(out.method).toBe("none");
    expect(out.messages).toBe(messages);
    expect(out.tokensBefore).toBe(7_874);
    expect(faux.requests).toHaveLength(0);
    expect(log.events).toEqual([]);
  });

  it("over the threshold: pinned prompt, the summary, then the newest turns verbatim", async () => {
    const faux = summariser("CARD-1");
    const log = recorder();
    const prompt = user("Fix the parser", true);
    const messages = [prompt, ...turns(1, 20)]; // 8 288 tokens
    const out = await compact(messages, faux.model, undefined, {
      ...BASE,
      reason: "threshold",
      emit: log.emit,
    });

    expect(out.method).toBe("summary");
    expect(out.messages).toHaveLength(10);
    expect(out.messages[0]).toBe(prompt);
    expect(textOf(out.messages[1]!)).toBe(`${PREFIX}CARD-1`);
    expect((out.messages[1] as { compaction?: boolean }).compaction).toBe(true);
    for (let i = 2; i < 10; i++) expect(out.messages[i]).toBe(messages[31 + i]); // turns 17..20
    expect(out.firstKeptIndex).toBe(33);
    expect(out.firstKept).toBe(messages[33]);
    expect(out.pinned).toEqual([prompt]);
    expect(out.summarised).toBe(32);
    expect(out.tokensAfter).toBe(8 + 23 + 4 * 414);

    // The summariser saw turns 1..16, with the work-card prompt, and nothing kept verbatim.
    const text = requestText(faux.requests[0]!);
    expect(text).toContain("## Next step");
    expect(text).toContain("r1:xxx");
    expect(text).toContain("r16:xxx");
    expect(text).not.toContain("r17:");
    expect(text).not.toContain("Fix the parser");
    expect(faux.requests[0]!.options.maxTokens).toBe(500);

    expect(log.events.map((e) => e.type)).toEqual([
      "compaction_start",
      "model_call_start",
      "model_call_end",
      "compaction_end",
    ]);
    expect(log.events[0]).toEqual({
      type: "compaction_start",
      reason: "threshold",
      tokensBefore: 8_288,
      messagesBefore: 41,
    });
    expect(log.events[1]).toMatchObject({ purpose: "compaction", model: faux.model.id });
    expect(log.events[3]).toEqual({
      type: "compaction_end",
      reason: "threshold",
      tokensBefore: 8_288,
      tokensAfter: 1_687,
      messagesBefore: 41,
      messagesKept: 9,
    });
  });

  it("keeps pinned messages verbatim and never shows them to the summariser", async () => {
    const faux = summariser("CARD");
    const goal = user("GOAL: port the lexer to Rust", true);
    const interrupt = user("INTERRUPT: do not touch the tests", true);
    const messages = [goal, ...turns(1, 8), interrupt, ...turns(9, 20)];
    const out = await compact(messages, faux.model, undefined, { ...BASE, reason: "threshold" });
    expect(out.messages[0]).toBe(goal);
    expect(out.messages[1]).toBe(interrupt);
    expect(textOf(out.messages[2]!)).toBe(`${PREFIX}CARD`);
    expect(out.messages.slice(3)).toEqual(messages.slice(-8));
    expect(out.pinned).toEqual([goal, interrupt]);
    const text = requestText(faux.requests[0]!);
    expect(text).not.toContain("GOAL");
    expect(text).not.toContain("INTERRUPT");
    expect(text).toContain("r8:xxx");
  });

  it("unpins all but the newest pinned message when pinned ones alone pass half the budget", async () => {
    const faux = summariser("CARD");
    // Each pinned message is 8 000 characters: 2 004 tokens; three of them (6 012) pass 5 000.
    const a = user("A".repeat(8_000), true);
    const b = user("B".repeat(8_000), true);
    const c = user("C".repeat(8_000), true);
    const messages = [a, ...turns(1, 4), b, ...turns(5, 8), c, ...turns(9, 16)];
    const out = await compact(messages, faux.model, undefined, { ...BASE, reason: "threshold" });
    expect(out.unpinned).toBe(2);
    expect(out.pinned).toEqual([c]);
    expect(out.messages[0]).toBe(c);
    expect(out.messages).not.toContain(a);
    expect(out.messages).not.toContain(b);
    const text = requestText(faux.requests[0]!);
    expect(text).toContain("AAAAAAAA");
    expect(text).toContain("BBBBBBBB");
    expect(text).not.toContain("CCCCCCCC");
  });

  it("keeps every call of a multi-call batch with its result, wherever the cut falls", async () => {
    const batch = assistant([{ id: "b1" }, { id: "b2" }, { id: "b3" }], "reading three files");
    const messages: AgentMessage[] = [
      user("Fix the parser", true),
      ...turns(1, 10),
      batch,
      result("b1", "one".padEnd(1_596, ".")),
      result("b2", "two".padEnd(1_596, ".")),
      result("b3", "three".padEnd(1_596, ".")),
      assistant([], "All three read; the bug is in two."),
      user("Then fix it."),
      ...turns(11, 12),
    ];
    const firstKept = new Set<AgentMessage | undefined>();
    for (let keep = 0; keep <= 3_000; keep += 50) {
      const faux = summariser("CARD");
      const out = await compact(messages, faux.model, undefined, {
        ...BASE,
        keepRecentTokens: keep,
        reason: "manual",
      });
      assertPaired(out.messages);
      const kept = ["b1", "b2", "b3"].map((id) =>
        out.messages.some((m) => (m as { toolCallId?: string }).toolCallId === id),
      );
      expect(kept.every((k) => k === kept[0])).toBe(true);
      expect(out.messages.includes(batch)).toBe(kept[0]);
      firstKept.add(out.firstKept);
    }
    // The sweep cut right before the batch and right after it.
    expect(firstKept.has(batch)).toBe(true);
    expect(firstKept.has(messages[25])).toBe(true);
  });

  it("falls back to deterministic truncation when the summariser fails", async () => {
    const faux = summariser({ error: { kind: "invalid_request", message: "model refused" } });
    const log = recorder();
    const prompt = user("Fix the parser", true);
    const messages = [prompt, ...turns(1, 20)];
    const out = await compact(messages, faux.model, undefined, {
      ...BASE,
      reason: "threshold",
      emit: log.emit,
    });
    expect(out.method).toBe("truncation");
    expect(out.messages[0]).toBe(prompt);
    expect(out.messages.slice(2)).toEqual(messages.slice(-8));
    const summary = textOf(out.messages[1]!);
    expect(
      summary.startsWith(`${PREFIX}## Dropped without a summary\nThe summariser failed: model refused.`),
    ).toBe(true);
    expect(summary).toContain('- assistant: called read({"path":"f16.ts"})\n- tool read: 1,596 characters');
    const end = log.events.find((e) => e.type === "compaction_end");
    expect(end).toMatchObject({
      errorMessage: "The summariser failed: model refused. Used deterministic truncation instead.",
    });
    expect(log.events.find((e) => e.type === "model_call_end")).toMatchObject({
      purpose: "compaction",
      stopReason: "error",
    });
  });

  it("falls back when the summariser answers nothing", async () => {
    const faux = summariser("   ");
    const out = await compact([user("Fix the parser", true), ...turns(1, 20)], faux.model, undefined, {
      ...BASE,
      reason: "threshold",
    });
    expect(out.method).toBe("truncation");
    expect(out.errorMessage).toBe("The summariser returned nothing. Used deterministic truncation instead.");
  });

  it("merges work cards across repeated compactions instead of summarising the summary", async () => {
    const faux = summariser("CARD-1: parser bug found in f03.ts", "CARD-2: parser fixed");
    const prompt = user("Fix the parser", true);
    const first = await compact([prompt, ...turns(1, 20)], faux.model, undefined, {
      ...BASE,
      reason: "threshold",
    });
    const second = await compact([...first.messages, ...turns(21, 36)], faux.model, undefined, {
      ...BASE,
      reason: "threshold",
    });
    const request = requestText(faux.requests[1]!);
    expect(request).toContain("<previous-card>\nCARD-1: parser bug found in f03.ts\n</previous-card>");
    expect(request).not.toContain(PREFIX.trim());
    expect(request).toContain("r17:xxx"); // kept verbatim last time, summarised now
    expect(second.messages[0]).toBe(prompt);
    expect(summaries(second.messages).map(textOf)).toEqual([`${PREFIX}CARD-2: parser fixed`]);
    expect(second.messages[1]).toBe(summaries(second.messages)[0]);
  });

  it("a hint picks the prompt: a named one, or free text as the focus", async () => {
    const faux = summariser("short", "focused");
    const messages = [user("Fix the parser", true), ...turns(1, 20)];
    await compact(messages, faux.model, "brief", BASE);
    await compact(messages, faux.model, "keep every SQL statement", BASE);
    const [brief, focused] = faux.requests as [FauxRequest, FauxRequest];
    expect(brief.context.systemPrompt).toContain("in at most a few short paragraphs");
    expect(brief.context.systemPrompt).not.toContain("## Next step");
    expect(focused.context.systemPrompt).toContain("## Next step");
    expect(focused.context.systemPrompt).toContain("keep every SQL statement");
  });

  it("manual compaction summarises all but the pins and the newest turn, even well under the threshold", async () => {
    const faux = summariser("CARD-M");
    const prompt = user("Fix the parser", true);
    const messages = [prompt, ...turns(1, 3)];
    const out = await compact(messages, faux.model, undefined, BASE);
    expect(out.method).toBe("summary");
    expect(faux.requests).toHaveLength(1);
    expect(out.messages[0]).toBe(prompt);
    expect(textOf(out.messages[1]!)).toBe(`${PREFIX}CARD-M`);
    expect(out.messages.slice(2)).toEqual(messages.slice(-2)); // turn 3: the call and its result
    expect(out.summarised).toBe(4);
    assertPaired(out.messages);
  });

  it("manual compaction of nothing but the pinned prompt and one turn changes nothing", async () => {
    const faux = summariser("unused");
    const messages = [user("Fix the parser", true), ...turns(1, 1)];
    const out = await compact(messages, faux.model, undefined, BASE);
    expect(out.method).toBe("none");
    expect(out.messages).toBe(messages);
    expect(faux.requests).toHaveLength(0);
  });
});
