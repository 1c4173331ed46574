// Per-sample latency from one timeline: each sample's two stamps come from the same clock, the
// difference is taken per sample, and only then are percentiles read. The difference of two
// percentiles (p99 of one process's arrivals minus p99 of another's) is not a latency: the two
// distributions' tails fall on different samples, so it can be far off, even negative.

import { percentile } from "./stats.js";

/** Bytes as they reached the process, stamped on its monotonic clock (ns). */
export interface Read {
  ns: bigint;
  text: string;
}

/**
 * When each needle, in order, was complete in the byte stream: the stamp of the read holding
 * its last character (a needle split over two reads arrives with the second; several in one read
 * share its stamp). Throws when a needle is missing, so a sample is never made up.
 */
export function arrivalsOf(reads: readonly Read[], needles: readonly string[]): bigint[] {
  const stream = reads.map((read) => read.text).join("");
  const ends: number[] = []; // ends[k]: offset just past read k
  let offset = 0;
  for (const read of reads) {
    offset += read.text.length;
    ends.push(offset);
  }
  const times: bigint[] = [];
  let cursor = 0;
  let k = 0;
  for (const [i, needle] of needles.entries()) {
    const at = stream.indexOf(needle, cursor);
    if (at < 0) throw new Error(`needle ${i} (${JSON.stringify(needle)}) not in the ${reads.length} reads`);
    const last = at + needle.length - 1;
    while (ends[k]! <= last) k++;
    times.push(reads[k]!.ns);
    cursor = last + 1;
  }
  return times;
}

/** `to[i] - from[i]` in µs, sample by sample; both series must cover the same samples. */
export function delaysUs(from: readonly bigint[], to: readonly bigint[]): number[] {
  if (from.length !== to.length) throw new Error(`${from.length} start stamps, ${to.length} end stamps`);
  return from.map((start, i) => Number(to[i]! - start) / 1000);
}

export interface LatencySummary {
  p50Us: number;
  p99Us: number;
  maxUs: number;
}

export function summarize(delays: readonly number[]): LatencySummary {
  return { p50Us: percentile(delays, 50), p99Us: percentile(delays, 99), maxUs: percentile(delays, 100) };
}
