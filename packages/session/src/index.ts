export { buildSessionContext, type ContextOptions } from "./context.js";
export { SessionError, type SessionErrorCode } from "./errors.js";
export { isEphemeralEvent } from "./event-log.js";
export {
  createFileSession,
  type FileSessionOptions,
  loadFileSession,
  openFileSession,
  readSessionFile,
} from "./file-session.js";
export {
  checkId as checkSessionId,
  FileSessionStore,
  type FileSessionStoreOptions,
  ternHome,
} from "./file-store.js";
export { forkSession } from "./fork.js";
export { liveLockOwner } from "./lock.js";
export { type ParsedSession, parseSession } from "./parse.js";
export {
  createSessionAgent,
  persistAgent,
  type SessionAgent,
  type SessionBinding,
} from "./persist-agent.js";
export { secretsInEnvironment } from "./redact.js";
export { INTERRUPTED_RESULT, type RepairReport, repairSession } from "./repair.js";
export { type ResumedSession, resumeSession } from "./resume.js";
export { type CompactionInput, Session, type SessionInit, type SessionSink } from "./session.js";
export type { SessionUsage } from "./session-index.js";
export {
  emptySummaryState,
  foldLine,
  type SummaryState,
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
