export { isDatabaseUnavailable, messageOf, PgStoreError, type PgStoreErrorCode } from "./errors.js";
export { DEFAULT_LEASE_MS, holderPid, newHolderId } from "./lease.js";
export {
  LATEST_SCHEMA_VERSION,
  MIGRATION_LOCK_KEY,
  MIGRATIONS,
  type Migration,
  migrate,
  type SchemaStatus,
  schemaStatus,
} from "./migrations.js";
export { type CommittedLine, DEFAULT_MAX_BATCH, PgSink } from "./pg-sink.js";
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DOWN_FOR_MS,
  DEFAULT_REQUEST_RETRY_MS,
  DEFAULT_RETRY_FOR_MS,
  PgSessionStore,
  type PgSessionStoreOptions,
} from "./pg-store.js";
export { describeTarget, redactPasswords, redactUrl } from "./redact.js";
