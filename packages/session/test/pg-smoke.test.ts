import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";
import { startTestPostgres } from "./support/postgres.js";

it("starts a throwaway cluster and restarts it", async () => {
  const pg = await startTestPostgres();
  try {
    const q = () => execFileSync("psql", [pg.url, "-tAc", "select 41+1"]).toString().trim();
    expect(q()).toBe("42");
    await pg.restart();
    expect(q()).toBe("42");
  } finally {
    await pg.dispose();
  }
});
