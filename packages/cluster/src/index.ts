export { type Control, sendControl } from "./control.js";
export { EventFeed, type FeedEvent } from "./event-feed.js";
export { type ClusterFront, type FrontOptions, startFront } from "./front.js";
export { enqueueRun, getRun, type RunRecord } from "./queue.js";
export { migrate, SCHEMA } from "./schema.js";
export {
  type ClusterWorker,
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_LEASE_MS,
  startWorker,
  sweep,
  type WorkerOptions,
} from "./worker.js";
