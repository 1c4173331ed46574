// The one PostgreSQL server a test run shares among the files that only need a database (each
// gets a fresh one): a cold start costs seconds idle and tens of seconds on a loaded machine, so
// it is paid once a run, not once a file. Global setup (../postgres-setup.ts) hands out an empty
// folder and stops the server at the end; the first file that asks starts it, under flock(1), and
// the others read the URL it wrote. Tests that stop or restart their server start their own.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { inject } from "vitest";
import { freePort, freshDatabase, PG_CLUSTER_SCRIPT, SCRIPT_CEILING_MS } from "./postgres.js";

const run = promisify(execFile);

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder of the run's shared server (global setup). */
    sharedPostgresDir: string;
  }
}

/** A hang ceiling for `sharedPostgresServer`: the wait for the lock may include another worker's cold start. */
export const SHARED_START_CEILING_MS = 2 * SCRIPT_CEILING_MS;

let server: Promise<string> | undefined;

/** The shared server's URL, started here if no file started it yet (a `beforeAll` of its own). */
export function sharedPostgresServer(): Promise<string> {
  server ??= startOnce(inject("sharedPostgresDir"));
  return server;
}

/** A new, empty database on the run's shared server. */
export async function sharedPostgres(): Promise<string> {
  return freshDatabase(await sharedPostgresServer());
}

async function startOnce(dir: string): Promise<string> {
  const port = await freePort();
  const script =
    'if [ ! -s "$1/url" ]; then bash "$2" start "$1/cluster" "$3" > "$1/url" || { rm -f "$1/url"; exit 1; }; fi; cat "$1/url"';
  // --close: the server the script starts must not inherit the lock, or it holds it while it runs.
  const args = ["--close", join(dir, "lock"), "sh", "-c", script, "sh", dir, PG_CLUSTER_SCRIPT, String(port)];
  const { stdout } = await run("flock", args, { timeout: SHARED_START_CEILING_MS });
  return stdout.trim();
}

/** The folder for global setup, under /tmp and traversable (as root the server runs as postgres). */
export async function createSharedPostgresDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tern-pg-shared-"));
  await chmod(dir, 0o755);
  return dir;
}

/** Stops the shared server if a test started it. */
export async function stopSharedPostgres(dir: string): Promise<void> {
  if (existsSync(join(dir, "cluster"))) await run("bash", [PG_CLUSTER_SCRIPT, "stop", join(dir, "cluster")]);
}
