// Provider-layer throughput: each capture served over loopback HTTP by a server in another
// process, parsed by the real provider code through `stream()`. CPU time is this process's
// alone, compared with bare JSON.parse of the same payload lines.
import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { type Api, type Model, stream } from "@tern/ai";
import { measure, round } from "./measure.js";

const CAPTURES: { path: string; api: Api }[] = [
  { path: "openai-completions/openai-text.chunks.txt", api: "openai-completions" },
  { path: "openai-completions/xai-tool-call.chunks.txt", api: "openai-completions" },
  { path: "openai-responses/openai-phase.1.chunks.txt", api: "openai-responses" },
  { path: "anthropic-messages/anthropic-clear-thinking.1.chunks.txt", api: "anthropic-messages" },
];
const REQUESTS = Number(process.env.BENCH_PARSE_REQUESTS ?? 200);

function modelFor(api: Api, baseUrl: string): Model {
  return {
    id: "bench",
    name: "bench",
    api,
    provider: "bench",
    baseUrl,
    contextWindow: 100_000,
    maxOutputTokens: 1000,
    abilities: { toolCall: true, jsonMode: true, reasoning: false, images: false },
    prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
}

async function drain(model: Model): Promise<number> {
  let events = 0;
  const s = stream(model, { messages: [{ role: "user", content: "go", timestamp: 0 }] }, { apiKey: "bench" });
  for await (const _ of s) events++;
  const message = await s.result();
  if (message.stopReason === "error") throw new Error(`${model.baseUrl}: ${message.errorMessage}`);
  return events;
}

export async function providerParseBench() {
  const server = fork(new URL("./replay-server.mjs", import.meta.url));
  const port = await new Promise<number>((resolve) =>
    server.once("message", (m) => resolve((m as { port: number }).port)),
  );
  const rows: Record<string, string | number>[] = [];
  try {
    for (const { path, api } of CAPTURES) {
      const model = modelFor(api, `http://127.0.0.1:${port}/${path}`);
      const root = new URL("../../packages/ai/test/fixtures/provider-streams/", import.meta.url);
      const lines = readFileSync(new URL(path, root), "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "");
      for (let i = 0; i < 20; i++) await drain(model);
      let events = 0;
      const provider = await measure(async () => {
        for (let i = 0; i < REQUESTS; i++) events += await drain(model);
      });
      let sink = 0;
      const bare = await measure(() => {
        for (let i = 0; i < REQUESTS; i++) for (const line of lines) sink += JSON.parse(line) ? 1 : 0;
      });
      if (sink === 0) throw new Error("unreachable");
      rows.push({
        capture: path.split("/")[1]!.replace(".chunks.txt", ""),
        KiB: round(Buffer.byteLength(lines.join("\n")) / 1024, 1),
        "events/req": events / REQUESTS,
        "events/s": Math.round(events / (provider.wallMs / 1000)),
        "cpu ms/req": round(provider.cpuMs / REQUESTS, 3),
        "JSON.parse ms/req": round(bare.cpuMs / REQUESTS, 3),
        "cpu ratio": round(provider.cpuMs / bare.cpuMs, 1),
      });
    }
  } finally {
    server.kill();
  }
  return rows;
}
