// Latency from one timeline on synthetic stamps: per-sample differences, then percentiles, where
// the difference of two runs' percentiles gives a wrong answer; and the mapping of wire reads to
// chunks (coalesced reads, a chunk split over two reads, a missing chunk). Plus the socket tap on
// a real loopback connection.
import { once } from "node:events";
import { type AddressInfo, connect, createServer, Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { tapReads } from "../src/workloads/socket-tap.js";
import { percentile } from "../src/workloads/stats.js";
import { arrivalsOf, delaysUs, type Read, summarize } from "../src/workloads/timeline.js";

const us = (n: number) => BigInt(Math.round(n * 1000)); // µs -> ns

/** 100 chunks sent 1 ms apart; `wire(i)` µs on the way to the process, `own` µs inside it. */
function timeline(wire: (i: number) => number, own: number) {
  const sent = Array.from({ length: 100 }, (_, i) => us(i * 1000));
  const read = sent.map((t, i) => t + us(wire(i)));
  const callback = read.map((t) => t + us(own));
  return { sent, read, callback };
}

describe("latency from one timeline", () => {
  it("gives what the runtime adds where the difference of two runs' percentiles does not", () => {
    // The runtime adds 40 µs to every chunk. Its run met a 5 ms stall on two chunks on the way in;
    // the baseline's run (1 µs of its own) met a 9 ms stall on four.
    const runtime = timeline((i) => (i === 10 || i === 60 ? 5_000 : 50), 40);
    const baseline = timeline((i) => (i % 33 === 0 ? 9_000 : 50), 1);
    const p99 = (t: ReturnType<typeof timeline>) => percentile(delaysUs(t.sent, t.callback), 99);
    // Old method: p99 minus the baseline's p99 says the runtime is 4 ms faster than free.
    expect(p99(runtime) - p99(baseline)).toBeCloseTo(5_040 - 9_001, 6);
    // One timeline, per chunk: 40 µs at every percentile, whatever happened on the wire.
    expect(summarize(delaysUs(runtime.read, runtime.callback))).toEqual({ p50Us: 40, p99Us: 40, maxUs: 40 });
    expect(summarize(delaysUs(baseline.read, baseline.callback))).toEqual({ p50Us: 1, p99Us: 1, maxUs: 1 });
  });

  it("keeps a merged chunk's delay on that chunk", () => {
    // A runtime that holds every tenth chunk back until the next one arrives: 1 ms on 10 chunks.
    const { read } = timeline(() => 50, 0);
    const callback = read.map((t, i) => (i % 10 === 0 ? read[i + 1]! : t));
    const own = delaysUs(read, callback);
    expect(summarize(own)).toEqual({ p50Us: 0, p99Us: 1_000, maxUs: 1_000 });
    expect(own.filter((d) => d > 0)).toHaveLength(10);
  });

  it("refuses series that do not cover the same samples", () => {
    expect(() => delaysUs([1n, 2n], [3n])).toThrow(/2 start stamps, 1 end stamps/);
  });
});

describe("arrivalsOf", () => {
  const needles = ['"c":"a"', '"c":"b"', '"c":"c"', '"c":"d"'];

  it("stamps each chunk with the read that completed it", () => {
    const reads: Read[] = [
      { ns: 10n, text: 'data: {"c":"a"}\n\ndata: {"c":"b"}\n\n' }, // two chunks in one read
      { ns: 20n, text: 'data: {"c":' }, // a chunk split over two reads
      { ns: 30n, text: '"c"}\n\ndata: {"c":"d"}' },
    ];
    expect(arrivalsOf(reads, needles)).toEqual([10n, 10n, 30n, 30n]);
  });

  it("reads the needles in order: a later copy of an earlier chunk is not taken for it", () => {
    const reads: Read[] = [
      { ns: 1n, text: '"c":"b" "c":"a"' },
      { ns: 2n, text: '"c":"b" "c":"c" "c":"d"' },
    ];
    expect(arrivalsOf(reads, needles)).toEqual([1n, 2n, 2n, 2n]);
  });

  it("throws on a chunk that never came, rather than make a sample up", () => {
    expect(() => arrivalsOf([{ ns: 1n, text: '"c":"a" "c":"c"' }], needles)).toThrow(/needle 1/);
  });
});

describe("tapReads", () => {
  it("stamps what arrives from the tapped port, before the reader sees it, and unwraps when closed", async () => {
    const server = createServer((socket) => {
      socket.write("one");
      socket.once("data", () => socket.end("two"));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const port = (server.address() as AddressInfo).port;
    const tap = tapReads(port);
    const seen: bigint[] = [];
    let text = "";
    try {
      const socket = connect(port, "127.0.0.1");
      socket.on("data", (chunk) => {
        seen.push(process.hrtime.bigint());
        text += chunk.toString();
        if (text === "one") socket.write("go");
      });
      await once(socket, "end");
    } finally {
      tap.close();
      server.close();
    }
    expect(text).toBe("onetwo");
    expect(tap.reads.map((read) => read.text).join("")).toBe("onetwo");
    expect(tap.reads[0]!.ns).toBeLessThanOrEqual(seen[0]!);
    expect(Object.hasOwn(Socket.prototype, "push")).toBe(false); // closed: sockets read as before
  });
});
