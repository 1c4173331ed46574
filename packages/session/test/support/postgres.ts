// A throwaway PostgreSQL cluster per test file, started by scripts/pg-cluster.sh on a free
// loopback port in a temporary directory. Real server, no mocks: the store's tests and the
// multi-node tests run against it, and `restart()` is how a test says "the database went away".
// A test that only needs a database takes one on the run's shared server (shared-postgres.ts).
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
export const PG_CLUSTER_SCRIPT = resolve(import.meta.dirname, "../../../../scripts/pg-cluster.sh");
/** initdb and a cold start on a loaded 2-core machine; a ceiling for hangs, not a speed check. */
export const SCRIPT_CEILING_MS = 120_000;

export interface TestPostgres {
  /** postgres://tern@127.0.0.1:PORT/tern */
  url: string;
  port: number;
  dir: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  restart(): Promise<void>;
  /** Stops the server and removes its directory. */
  dispose(): Promise<void>;
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const dir = await mkdtemp(join(tmpdir(), "tern-pg-"));
  const port = await freePort();
  const script = (...args: string[]) =>
    run("bash", [PG_CLUSTER_SCRIPT, ...args], { timeout: SCRIPT_CEILING_MS }).then((r) => r.stdout.trim());
  const url = await script("start", dir, String(port));
  return {
    url,
    port,
    dir,
    stop: async () => void (await script("stop", dir)),
    start: async () => void (await script("start", dir, String(port))),
    restart: async () => void (await script("restart", dir)),
    dispose: async () => {
      await script("stop", dir);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A new, empty database on the server at `url` (tests that share one server keep apart); its URL. */
export async function freshDatabase(url: string): Promise<string> {
  const { default: pg } = await import("pg");
  const name = `t_${randomUUID().replaceAll("-", "")}`;
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query(`create database ${name}`);
  } finally {
    await db.end();
  }
  const fresh = new URL(url);
  fresh.pathname = `/${name}`;
  return fresh.toString();
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolvePort(address.port) : reject(new Error("no port")),
      );
    });
  });
}
