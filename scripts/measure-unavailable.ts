// How fast a request fails during a database outage: a real `serve` (HTTP) on a PgSessionStore,
// its throwaway PostgreSQL stopped, 10 `POST /api/sessions` each outside the store's known-down
// window (so each one tries the database). Prints the statuses and the latency (docs/scaling.md).
// Run: node --import tsx scripts/measure-unavailable.ts
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UNKNOWN_MODEL_DEFAULTS } from "@tern/ai";
import { modelCatalog, serve } from "@tern/server";
import { PgSessionStore } from "@tern/store-pg";
import { startTestPostgres } from "../packages/session/test/support/postgres.js";

const pg = await startTestPostgres();
const store = await PgSessionStore.connect({ url: pg.url });
store.pool.on("error", () => {});
const model = {
  id: "m",
  name: "m",
  api: "openai-completions",
  provider: "local",
  baseUrl: "http://127.0.0.1:9/v1",
  ...UNKNOWN_MODEL_DEFAULTS,
} as const;
const served = await serve({
  engine: { models: modelCatalog([model]), store, cwd: mkdtempSync(join(tmpdir(), "u-")) },
  port: 0,
});
const post = () =>
  fetch(`${served.http!.url}/api/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
await post();
await pg.stop();
const times: number[] = [];
const statuses: string[] = [];
for (let i = 0; i < 10; i++) {
  const t = performance.now();
  const res = await post();
  times.push(performance.now() - t);
  statuses.push(`${res.status}/${res.headers.get("retry-after")}`);
  await new Promise((r) => setTimeout(r, 1100)); // outside the known-down window: each one tries the database
}
const sorted = [...times].sort((a, b) => a - b);
console.log("statuses", statuses.join(" "));
console.log(
  `503 latency ms: median ${sorted[5]!.toFixed(0)} min ${sorted[0]!.toFixed(0)} max ${sorted[9]!.toFixed(0)}`,
);
await served.close();
await pg.dispose();
