// Soak: 500 tool turns whose results are 20 KB each, under a 32k-token budget. Every request the
// model receives is checked as it arrives: inside the budget, the tool protocol intact, the
// original request still first.
import { estimateContextTokens, type Message } from "@tern/ai";
import { createFaux, type FauxRequest, fauxToolCall } from "@tern/ai/testing";
import { expect, it } from "vitest";
import { contextGuard } from "../../src/context/index.js";
import { agentLoop } from "../../src/loop.js";
import type { AgentTool } from "../../src/types.js";
import { assertPaired, textOf, user } from "./support.js";

const TURNS = 500;
const BUDGET = 32_000;
const PROMPT = "Crawl the 500 pages and report what they say.";

it("500 turns of 20 KB tool results stay inside a 32k budget with the protocol intact", async () => {
  const problems: string[] = [];
  let maxTokens = 0;
  const check = (request: FauxRequest): void => {
    const messages = request.context.messages;
    const tokens = estimateContextTokens(request.context);
    maxTokens = Math.max(maxTokens, tokens);
    if (tokens > BUDGET) problems.push(`call ${request.callIndex}: ${tokens} tokens`);
    try {
      assertPaired(messages);
    } catch (error) {
      problems.push(`call ${request.callIndex}: ${(error as Error).message}`);
    }
    const last = messages[messages.length - 1] as Message;
    if (last.role === "assistant") problems.push(`call ${request.callIndex}: ends with an assistant message`);
    if (textOf(messages[0]!) !== PROMPT) problems.push(`call ${request.callIndex}: the request is not first`);
  };
  const model = createFaux({ recordRequests: false, chunkSize: 100_000 });
  let seed = 7;
  const random = () => {
    seed = (seed * 48_271) % 2_147_483_647; // a fixed sequence: the run is the same every time
    return seed / 2_147_483_647;
  };
  let page = 0;
  for (let n = 1; n <= TURNS; n++) {
    model.push((request) => {
      check(request);
      // One to three calls a turn, so cuts also meet multi-call batches.
      const count = 1 + Math.floor(random() * random() * 3);
      return { content: Array.from({ length: count }, () => fauxToolCall("fetch", { page: ++page })) };
    });
  }
  model.push((request) => {
    check(request);
    return "All 500 pages read.";
  });
  let cards = 0;
  const summariser = createFaux({ recordRequests: false, chunkSize: 100_000 });
  const card = () => `## Request\nCrawl pages.\n## Next step\nPage after card ${++cards}.`;
  for (let i = 0; i < TURNS; i++) summariser.push(card);

  const fetch: AgentTool<{ page: number }> = {
    name: "fetch",
    description: "Fetch a page",
    parameters: { type: "object", properties: { page: { type: "number" } }, required: ["page"] },
    execute: ({ page }) => `page ${page}\n${"lorem ipsum ".repeat(1_700)}`, // 20 KB
  };
  const stream = agentLoop(
    [user(PROMPT)],
    { messages: [], tools: [fetch], systemPrompt: "You crawl pages." },
    { model: model.model, policies: [contextGuard({ budget: BUDGET, summaryModel: summariser.model })] },
  );
  let compactions = 0;
  for await (const event of stream) if (event.type === "compaction_end") compactions++;
  const result = await stream.result();

  expect(problems).toEqual([]);
  expect(result.stopReason).toBe("stop");
  expect(result.answer).toBe("All 500 pages read.");
  expect(result.iterations).toBe(TURNS + 1);
  expect(maxTokens).toBeLessThanOrEqual(BUDGET);
  expect(maxTokens).toBeGreaterThan(BUDGET / 2); // the budget was actually used
  expect(compactions).toBeGreaterThan(50);
  expect(cards).toBeGreaterThan(50);
});
