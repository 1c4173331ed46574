// A node that starts (or restarts) while others run migrates without locking their tables: at the
// current version the DDL is skipped, so a live node's writes and the new node's start cannot
// deadlock (CI saw "deadlock detected" from a worker restarted mid-run, before the version check).
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestPostgres, type TestPostgres } from "../../session/test/support/postgres.js";
import { migrate, SCHEMA, SCHEMA_VERSION } from "../src/schema.js";

/** Ceiling for hangs only. */
const CEILING_MS = 120_000;

let server: TestPostgres;
let pool: pg.Pool;

beforeAll(async () => {
  server = await startTestPostgres();
  pool = new pg.Pool({ connectionString: server.url });
  await migrate(pool, server.url);
}, CEILING_MS);

afterAll(async () => {
  await pool?.end();
  await server?.dispose();
});

it("records the schema's version once, however often nodes migrate", async () => {
  await Promise.all([migrate(pool, server.url), migrate(pool, server.url)]);
  const { rows } = await pool.query(`select version from ${SCHEMA}.schema_version`);
  expect(rows).toEqual([{ version: SCHEMA_VERSION }]);
});

it("a node migrating while another holds write locks on the tables takes none of theirs", async () => {
  const live = await pool.connect();
  // The restarted node gives up on any lock it would wait for, instead of hanging the test.
  const restarted = new pg.Pool({ connectionString: server.url, options: "-c lock_timeout=1000" });
  try {
    await live.query("begin");
    for (const table of ["runs", "events", "controls"])
      await live.query(`lock table ${SCHEMA}.${table} in row exclusive mode`);
    await expect(migrate(restarted, server.url)).resolves.toBeUndefined();
  } finally {
    await live.query("rollback");
    live.release();
    await restarted.end();
  }
});
