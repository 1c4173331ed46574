import { defineConfig } from "vitest/config";

// Some machines (this project's CI among them) point NODE_EXTRA_CA_CERTS at the whole system CA
// bundle, which every Node process then parses before running a line: ~70 ms of CPU, paid by
// each of the thousand-odd processes the suite starts (workers, tern children, MCP servers). The
// tests reach loopback servers only, so the workers, and every process they start, go without it.
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
    // Ceilings for hangs only, never a speed check: on a loaded 2-core machine the slowest tests
    // (many real tern processes in a row) take 15-20 s, so the ceiling sits well above that.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Three files at a time on 2 cores: most tests wait on child processes and loopback I/O.
    // Measured on an idle 2-core machine, whole suite: 2 workers ~432 s, 3 workers 359 s, 4 workers
    // 376 s (CPU-bound by then: 562 CPU-s). Sharing a worker between files (--no-isolate) cut the
    // CPU to 393 s but not the wall (363 s), and 7 tests failed on state another file left behind.
    maxWorkers: 3,
    // Forks, not threads: on the 43 files of packages/ai and packages/agent threads measured no
    // faster (404 s against 410 s wall at load ~27; import was ~370 s of both, the module graph
    // each file loads again), so the pool stays the one the suite was written against.
    pool: "forks",
    // Builds the `tern` bundle once for the tests that spawn the real command, and hands out the
    // folder of the PostgreSQL server the database tests share (started on first use).
    globalSetup: ["packages/cli/test/global-setup.ts", "packages/session/test/postgres-setup.ts"],
  },
});
