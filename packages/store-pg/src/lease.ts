// The single-writer guarantee: a lease on the session's row (holder id + expiry on the database's
// clock). A writer takes it when it is free or expired, renews it while it writes (heartbeat and
// every batch), and frees it on close. A writer that dies stops renewing, so its lease runs out
// and the next `open` takes over; one that comes back after that finds it gone (every batch checks
// the holder) and fails instead of writing over the new writer.

import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type pg from "pg";

export const DEFAULT_LEASE_MS = 30_000;

/** hostname:pid:random, so `locked` errors say who holds a session. */
export function newHolderId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/** The process id inside a holder id (`hostname:pid:random`), for tools that signal the writer. */
export function holderPid(holder: string | null | undefined): number | undefined {
  const pid = Number((holder ?? "").split(":").at(-2));
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

export interface LeaseState {
  holder: string | null;
  /** Milliseconds until expiry (negative: expired). */
  remainingMs: number | null;
}

/** Takes the lease if free or expired. Returns false if the session is held by a live writer. */
export async function takeLease(
  pool: pg.Pool,
  id: string,
  holder: string,
  leaseMs: number,
): Promise<boolean> {
  const result = await pool.query(
    `UPDATE tern_sessions SET lease_holder = $2, lease_expires = now() + $3::int * interval '1 millisecond'
      WHERE id = $1 AND (lease_holder IS NULL OR lease_holder = $2 OR lease_expires < now())`,
    [id, holder, leaseMs],
  );
  return result.rowCount === 1;
}

/** Extends the lease; false when this holder no longer has it. */
export async function renewLease(
  pool: pg.Pool,
  id: string,
  holder: string,
  leaseMs: number,
): Promise<boolean> {
  const result = await pool.query(
    `UPDATE tern_sessions SET lease_expires = now() + $3::int * interval '1 millisecond'
      WHERE id = $1 AND lease_holder = $2`,
    [id, holder, leaseMs],
  );
  return result.rowCount === 1;
}

export async function releaseLease(pool: pg.Pool, id: string, holder: string): Promise<void> {
  await pool.query(
    "UPDATE tern_sessions SET lease_holder = NULL, lease_expires = NULL WHERE id = $1 AND lease_holder = $2",
    [id, holder],
  );
}

/** Who holds `id` (undefined: no such session). */
export async function leaseOf(pool: pg.Pool, id: string): Promise<LeaseState | undefined> {
  const result = await pool.query<{ lease_holder: string | null; remaining: number | null }>(
    `SELECT lease_holder, (extract(epoch FROM lease_expires - now()) * 1000)::float8 AS remaining
       FROM tern_sessions WHERE id = $1`,
    [id],
  );
  const row = result.rows[0];
  return row ? { holder: row.lease_holder, remainingMs: row.remaining } : undefined;
}
