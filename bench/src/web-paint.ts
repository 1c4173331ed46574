// The web page's first paint of a long session: a served session with 500 turns recorded (faux
// model, every fifth turn with a tool call), opened in Debian's chromium in a fresh tab; measured
// from navigation start to the frame after all 500 turns are in the DOM (history from GET
// /api/sessions/:id, the last run replayed from /events). Interleaved rounds, median and range.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFaux, type FauxStep, fauxToolCall } from "@tern/ai";
import { modelCatalog, startServer } from "@tern/server";
import { launchChromium } from "../../packages/web/test/support/chromium.js";
import { round } from "./measure.js";
import { median } from "./workloads/table.js";

const TURNS = 500;
const ROUNDS = 7;
const ANSWER =
  "Here is what I found:\n\n- **one** thing in `src/a.ts`\n- another in [the docs](https://example.com)\n\n```ts\nconst x = 1;\n```";
const JSON_BODY = { "content-type": "application/json" };

export async function webPaintBench() {
  const home = mkdtempSync(join(tmpdir(), "tern-bench-web-"));
  const site = join(home, "site");
  const script = new URL("../../packages/web/scripts/build.mjs", import.meta.url).href;
  const { buildWeb } = (await import(script)) as {
    buildWeb: (out: string) => Promise<unknown>;
  };
  await buildWeb(site);
  let turn = 0;
  const reply: FauxStep = ({ context }) => {
    if (context.messages.at(-1)!.role === "user" && turn++ % 5 === 0)
      return { content: [fauxToolCall("noop", { path: `file-${turn}.ts` })] };
    return ANSWER;
  };
  const faux = createFaux({ replies: Array(TURNS * 3).fill(reply), recordRequests: false });
  const server = await startServer({
    engine: {
      models: modelCatalog([faux.model]),
      home,
      cwd: home,
      fsync: "never",
      configureAgent: () => ({
        tools: [
          {
            name: "noop",
            description: "does nothing",
            parameters: { type: "object", properties: { path: { type: "string" } } },
            execute: () => "line\n".repeat(12),
          },
        ],
      }),
    },
    webRoot: site,
  });
  const created = await fetch(`${server.url}/api/sessions`, {
    method: "POST",
    headers: JSON_BODY,
    body: "{}",
  });
  const id = ((await created.json()) as { session: { id: string } }).session.id;
  for (let i = 0; i < TURNS; i++) {
    const res = await fetch(`${server.url}/api/sessions/${id}/messages`, {
      method: "POST",
      headers: JSON_BODY,
      body: JSON.stringify({ content: `task number ${i}` }),
    });
    await res.text();
  }
  const browser = await launchChromium();
  const times: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const page = await browser.context.newPage();
      await page.goto(`${server.url}/#/s/${id}`);
      await page.waitForFunction(`document.querySelectorAll(".turn").length >= ${TURNS}`, undefined, {
        timeout: 60_000,
      });
      // performance.now() counts from navigation start; the rAF waits for the frame to be painted.
      times.push(
        (await page.evaluate(
          "new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())))",
        )) as number,
      );
      await page.close();
    }
  } finally {
    await browser.close();
    await server.close({ engine: true });
    rmSync(home, { recursive: true, force: true });
  }
  return [
    {
      turns: TURNS,
      rounds: ROUNDS,
      "first paint median ms": round(median(times), 0),
      "min ms": round(Math.min(...times), 0),
      "max ms": round(Math.max(...times), 0),
    },
  ];
}
