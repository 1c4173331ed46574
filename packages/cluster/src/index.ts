// @tern/cluster's public surface: a serve node's queued run host, a worker, the database-restart
// guard both run under, and enqueueRun for submitting a run without a node. The event feed,
// controls, schema and sweep are internals of the host and the worker.
export { surviveDatabaseRestarts } from "./database-weather.js";
export { enqueueRun } from "./queue.js";
export { type QueuedHost, type QueuedHostOptions, startQueuedHost } from "./queued-host.js";
export type { GraphileErrorListener } from "./schema.js";
export { type ClusterWorker, startWorker, type WorkerOptions } from "./worker.js";
