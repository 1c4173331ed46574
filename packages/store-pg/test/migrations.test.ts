import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import {
  SHARED_START_CEILING_MS,
  sharedPostgres,
  sharedPostgresServer,
} from "../../session/test/support/shared-postgres.js";
import { LATEST_SCHEMA_VERSION, migrate, schemaStatus } from "../src/migrations.js";
import { PgSessionStore } from "../src/pg-store.js";

/** Nodes starting at once, each with its own pool. */
const MIGRATORS = 6;

// The server's cold start is the hook's, not the first test's.
beforeAll(sharedPostgresServer, SHARED_START_CEILING_MS);

describe("migrations", () => {
  it("several nodes migrating an empty database at once: each migration is applied exactly once", async () => {
    const url = await sharedPostgres();
    const pools = Array.from({ length: MIGRATORS }, () => new pg.Pool({ connectionString: url, max: 2 }));
    try {
      const results = await Promise.all(pools.map((pool) => migrate(pool)));
      // Exactly one node found the database empty; the others found it done.
      expect(results.filter((r) => r.from === 0)).toHaveLength(1);
      expect(results.every((r) => r.to === LATEST_SCHEMA_VERSION)).toBe(true);
      const applied = await pools[0]!.query("SELECT version FROM tern_schema_migrations ORDER BY version");
      expect(applied.rows.map((row) => row.version)).toEqual(
        Array.from({ length: LATEST_SCHEMA_VERSION }, (_, i) => i + 1),
      );
      expect(await schemaStatus(pools[0]!)).toEqual({
        current: LATEST_SCHEMA_VERSION,
        latest: LATEST_SCHEMA_VERSION,
        pending: [],
      });
      // Idempotent: running again changes nothing.
      expect(await migrate(pools[1]!)).toEqual({ from: LATEST_SCHEMA_VERSION, to: LATEST_SCHEMA_VERSION });
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it("status of an empty database lists every migration as pending; stores migrate on start", async () => {
    const url = await sharedPostgres();
    const pool = new pg.Pool({ connectionString: url });
    try {
      expect(await schemaStatus(pool)).toMatchObject({ current: 0, pending: [1] });
      const store = await PgSessionStore.connect({ url });
      expect(await store.health()).toEqual({
        kind: "postgres",
        ok: true,
        schemaVersion: LATEST_SCHEMA_VERSION,
      });
      await store.close();
      expect((await schemaStatus(pool)).current).toBe(LATEST_SCHEMA_VERSION);
    } finally {
      await pool.end();
    }
  });

  it("refuses a database whose schema is newer than this code", async () => {
    const url = await sharedPostgres();
    const pool = new pg.Pool({ connectionString: url });
    try {
      await migrate(pool);
      await pool.query("INSERT INTO tern_schema_migrations (version, name) VALUES ($1, 'from the future')", [
        LATEST_SCHEMA_VERSION + 1,
      ]);
      await expect(PgSessionStore.connect({ url })).rejects.toMatchObject({
        code: "schema",
        message: expect.stringMatching(/newer than this tern knows.*upgrade tern/),
      });
    } finally {
      await pool.end();
    }
  });
});
