// Setup file of scripts/suite-cpu: at the end of each test file, appends the worker's own CPU and
// that of every child it reaped (tern processes, MCP servers, Chromium, bwrap...) to the log the
// runner names. Linux only (/proc/self/stat); worker processes are one per file (pool "forks").
// A child that is still running or not yet reaped when the file ends is not counted.
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll, expect } from "vitest";

/** USER_HZ: the unit of /proc's CPU times, 100 on Linux. */
const TICKS_PER_SECOND = 100;
const started = Date.now();

afterAll(() => {
  // Fields after the command's closing parenthesis: utime, stime, cutime, cstime are 11-14.
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  const seconds = (a, b) => (Number(fields[a]) + Number(fields[b])) / TICKS_PER_SECOND;
  const line = [expect.getState().testPath, seconds(11, 12), seconds(13, 14), (Date.now() - started) / 1000];
  appendFileSync(process.env.TERN_SUITE_CPU_LOG, `${line.join("\t")}\n`);
});
