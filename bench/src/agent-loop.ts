// The loop's own cost: the faux provider at zero delay, so nothing but tern runs. Each run is
// `TURNS` tool-calling turns and a final answer, started fresh, many runs in a row.

import { Agent, defineTool } from "@tern/agent";
import { createFaux, fauxToolCall } from "@tern/ai";
import { z } from "zod";
import { measure, round } from "./measure.js";

const RUNS = Number(process.env.BENCH_AGENT_RUNS ?? 300);
export const TURNS = 10;

export const echo = defineTool({
  name: "echo",
  description: "Echo the text back",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

export function scriptedModel() {
  const faux = createFaux({ recordRequests: false, chunkSize: 16 });
  // Each run: TURNS tool calls, then an answer, decided from how far the run has got.
  const reply = ({ context }: { context: { messages: { role: string }[] } }) => {
    const calls = context.messages.filter((m) => m.role === "assistant").length;
    return calls < TURNS
      ? { content: [fauxToolCall("echo", { text: `step ${calls}` })] }
      : "All steps are done, and here is a short answer.";
  };
  return { faux, reply };
}

export async function agentLoopBench() {
  const { faux, reply } = scriptedModel();
  let events = 0;
  let turns = 0;
  const oneRun = async () => {
    for (let i = 0; i <= TURNS; i++) faux.push(reply);
    const agent = new Agent({ model: faux.model, tools: [echo] });
    agent.subscribe(() => {
      events++;
    });
    const result = await agent.prompt("Run the steps.");
    if (result.stopReason !== "stop")
      throw new Error(`run ended with ${result.stopReason}: ${result.errorMessage}`);
    turns += result.iterations;
  };
  for (let i = 0; i < 30; i++) await oneRun(); // warm up
  events = 0;
  turns = 0;
  const timing = await measure(async () => {
    for (let i = 0; i < RUNS; i++) await oneRun();
  });
  return [
    {
      workload: `${RUNS} runs x ${TURNS + 1} turns, faux at zero delay`,
      turns,
      events,
      "cpu µs/turn": round((timing.cpuMs * 1000) / turns, 1),
      "wall µs/turn": round((timing.wallMs * 1000) / turns, 1),
      "events/s": Math.round(events / (timing.wallMs / 1000)),
    },
  ];
}

/** Heap and RSS of 1,000 idle Agents that each finished one short run. Wants --expose-gc. */
export async function idleAgentsBench() {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("idle agents bench needs node --expose-gc");
  const faux = createFaux({ recordRequests: false });
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const rssBefore = process.memoryUsage().rss;
  const agents: Agent[] = [];
  for (let i = 0; i < 1000; i++) {
    faux.push("Hello! How can I help?");
    const agent = new Agent({ model: faux.model, tools: [echo], systemPrompt: "You are helpful." });
    await agent.prompt("hi");
    agents.push(agent);
  }
  gc();
  const heapAfter = process.memoryUsage().heapUsed;
  const rssAfter = process.memoryUsage().rss;
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  if (agents.length !== 1000) throw new Error("unreachable");
  return [
    {
      workload: "1,000 idle Agents (one short run each)",
      "heap KiB/agent": round((heapAfter - heapBefore) / 1024 / 1000, 2),
      "rss growth MiB": round((rssAfter - rssBefore) / 1024 / 1024, 1),
      "peak rss MiB (process)": round(peakRssMb, 1),
    },
  ];
}
