// @tern/store-pg's public surface: the PostgreSQL SessionStore, its schema commands, its typed
// failures, and the lease and redaction helpers the cluster and the CLI share with it. The sink,
// the migrations' list and the retry defaults are internals of the store.
export { isDatabaseUnavailable, messageOf, PgStoreError, type PgStoreErrorCode } from "./errors.js";
export { holderPid } from "./lease.js";
export { migrate, type SchemaStatus, schemaStatus } from "./migrations.js";
export type { CommittedLine } from "./pg-sink.js";
export { DEFAULT_DOWN_FOR_MS, PgSessionStore, type PgSessionStoreOptions } from "./pg-store.js";
export { surviveLostConnections } from "./pool-errors.js";
export { redactPasswords, redactUrl } from "./redact.js";
