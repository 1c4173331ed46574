export {
  BRANCH_SUMMARY_PREFIX,
  buildSessionContext,
  COMPACTION_PREFIX,
  type ContextOptions,
  defaultBranchSummaryMessage,
  defaultCompactionMessage,
} from "./context.js";
export { SessionError, type SessionErrorCode } from "./errors.js";
export { compactEvent, hydrateEvent, isEphemeralEvent } from "./event-log.js";
export { FileAppender } from "./file-appender.js";
export {
  createFileSession,
  type FileSessionOptions,
  loadFileSession,
  openFileSession,
  readSessionFile,
} from "./file-session.js";
export {
  checkId as checkSessionId,
  encodeCwd,
  FileSessionStore,
  type FileSessionStoreOptions,
  ternHome,
} from "./file-store.js";
export { forkSession } from "./fork.js";
export {
  acquireLock,
  clearStaleLock,
  type LockOwner,
  liveLockOwner,
  lockPathFor,
  type SessionLock,
} from "./lock.js";
export { type ParsedSession, parseSession } from "./parse.js";
export {
  createSessionAgent,
  persistAgent,
  type SessionAgent,
  type SessionBinding,
} from "./persist-agent.js";
export { type RecorderOptions, recordReplacement, SessionRecorder } from "./recorder.js";
export {
  createRedactor,
  type LineRedactor,
  REDACTED,
  redactKeyShapes,
  secretsInEnvironment,
} from "./redact.js";
export {
  detectInterruption,
  INTERRUPTED_RESULT,
  type Interruption,
  type InterruptionKind,
  type RepairReport,
  repairSession,
} from "./repair.js";
export { type ResumedSession, resumeSession } from "./resume.js";
export { type CompactionInput, Session, type SessionInit, type SessionSink } from "./session.js";
export type { SessionUsage } from "./session-index.js";
export {
  emptySummaryState,
  foldLine,
  type SummaryState,
  summarize,
  summarizeEntries,
  summaryOf,
  unreadableSummary,
} from "./summary.js";
export { SessionTree } from "./tree.js";
export * from "./types.js";
export {
  emptyUsageFold,
  type UsageBucket,
  type UsageCounts,
  type UsageFold,
  usageFoldOf,
} from "./usage-fold.js";
