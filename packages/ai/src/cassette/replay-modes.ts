// The replay modes a host validates its flags against. A file of their own so that reading them
// (every CLI command parses the cassette flags) does not load the replaying fetch and undici.

export const REPLAY_TIMINGS = ["none", "real"] as const;
export type ReplayTiming = (typeof REPLAY_TIMINGS)[number];
export const REPLAY_MISSES = ["fail", "record"] as const;
export type ReplayMiss = (typeof REPLAY_MISSES)[number];
