export { type Control, sendControl } from "./control.js";
export { surviveDatabaseRestarts } from "./database-weather.js";
export { EventFeed, type FeedEvent, type FeedUpdate } from "./event-feed.js";
export { enqueueRun, getRun, type RunRecord } from "./queue.js";
export { type QueuedHost, type QueuedHostOptions, startQueuedHost } from "./queued-host.js";
export { QueuedSession } from "./queued-session.js";
export { type GraphileErrorListener, migrate, SCHEMA } from "./schema.js";
export {
  type ClusterWorker,
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_LEASE_MS,
  startWorker,
  sweep,
  type WorkerOptions,
} from "./worker.js";
