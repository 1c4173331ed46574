// extractJson on adversarial text: runs of unbalanced brackets that make a naive scanner restart
// at every `{` and read to the end. Its scan budget keeps the work linear: ms per 100k characters
// should stay flat as the text grows. (The suite checks only that it gives up; the time is here.)
import { performance } from "node:perf_hooks";
import { extractJson } from "@tern/ai";
import { round } from "./measure.js";
import { percentile } from "./workloads/stats.js";

const SIZES = [10_000, 40_000, 160_000];
const ROUNDS = Number(process.env.BENCH_EXTRACT_ROUNDS ?? 7);

export async function extractJsonBench() {
  const texts = SIZES.map((pairs) => `${"{[".repeat(pairs)}{"a": 1}`);
  const samples = SIZES.map(() => [] as number[]);
  extractJson(texts[0]!); // warm-up
  // Interleaved: every round measures every size, so load on the machine hits them alike.
  for (let round = 0; round < ROUNDS; round++) {
    texts.forEach((text, i) => {
      const start = performance.now();
      extractJson(text);
      samples[i]!.push(performance.now() - start);
    });
  }
  return SIZES.map((pairs, i) => {
    const median = percentile(samples[i]!, 50);
    return {
      "text chars": texts[i]!.length,
      "median ms": round(median, 1),
      "min ms": round(Math.min(...samples[i]!), 1),
      "max ms": round(Math.max(...samples[i]!), 1),
      "ms per 100k chars": round((median / texts[i]!.length) * 100_000, 2),
      rounds: ROUNDS,
      pairs,
    };
  });
}
