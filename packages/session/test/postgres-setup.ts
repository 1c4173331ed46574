// Vitest global setup: a folder for the one PostgreSQL server the whole run may share. Nothing
// starts here (a run without database tests pays nothing); the first test file that asks
// (`sharedPostgres()`) starts it, the others find it running, and teardown stops it. A cold
// start costs seconds idle and tens of seconds on a loaded machine, once instead of once a file.
import { rm } from "node:fs/promises";
import type { TestProject } from "vitest/node";
import { createSharedPostgresDir, stopSharedPostgres } from "./support/shared-postgres.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await createSharedPostgresDir();
  project.provide("sharedPostgresDir", dir);
  return async () => {
    await stopSharedPostgres(dir);
    await rm(dir, { recursive: true, force: true });
  };
}
