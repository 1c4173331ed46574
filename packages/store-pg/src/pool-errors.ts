// A lost connection must never end the process. pg emits "error" on a pooled client whose
// connection dies (a database restart, a terminated backend), and an "error" event with no listener
// is thrown as an uncaught exception. The pool listens for its idle clients only: a client checked
// out and waiting between two statements (inside a transaction, or while its holder awaits other
// work) has no listener, so a restart landing in that gap killed a cluster worker (exit 1). Every
// client the pool makes gets a listener of its own; the statement that needed the connection still
// rejects with the error, so nothing is hidden from the caller.
import { messageOf } from "./errors.js";

/** The part of a pg.Pool this needs (a structural type, so a host's own pool fits). */
interface ErrorEmittingPool {
  on(event: "error", listener: (error: Error) => void): unknown;
  on(
    event: "connect",
    listener: (client: { on(event: "error", listener: (error: Error) => void): unknown }) => void,
  ): unknown;
}

/** Logs, instead of throwing, every connection error of `pool`'s clients, idle or checked out. */
export function surviveLostConnections(pool: ErrorEmittingPool, log: (line: string) => void): void {
  pool.on("error", () => {}); // an idle client's error: its own listener below has logged it
  pool.on("connect", (client) => {
    client.on("error", (error) => log(`connection lost: ${messageOf(error)}`));
  });
}
