// What the client bridges (client tools, permission requests, client hooks) need from their
// session: the attached client, a way to publish server events, and the questions in flight.

import type { ClientAttachment, SessionServerEvent } from "../types.js";
import type { PendingRequests } from "./pending.js";

export interface BridgeContext {
  readonly sessionId: string;
  readonly cwd: string;
  /** The client attached right now (it may change between two calls). */
  attachment(): ClientAttachment | undefined;
  /** Persists the event in the session's log and hands it to every listener. */
  publish(event: SessionServerEvent): void;
  readonly pending: PendingRequests;
  /** How long a permission question waits before it is denied. */
  readonly permissionTimeoutMs: number;
  newId(): string;
  now(): number;
}
