// Helpers for the sandbox tests: whether bubblewrap is usable here (the tests skip, saying why,
// only when it is not), host processes by command line, a loopback HTTP server, and polling.

import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createSandbox } from "../src/index.js";

const status = await createSandbox().status();

/** Why the sandbox tests skip, or undefined when bubblewrap works here. */
export const SANDBOX_SKIP_REASON: string | undefined =
  status.profile === "sandbox" && !status.available
    ? `skipped: bubblewrap is not usable here (${status.reason})`
    : undefined;

/** Host pids whose command line is exactly `argv` (read from /proc). */
export function hostProcesses(argv: readonly string[]): number[] {
  const wanted = `${argv.join("\0")}\0`;
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8") !== wanted) continue;
      // A zombie is already dead; it only waits for its parent to reap it.
      if (/^State:\s+Z/m.test(readFileSync(`/proc/${name}/status`, "utf8"))) continue;
      pids.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Polls `probe` until it returns a value; the ceiling only stops a hang. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** An HTTP server on 127.0.0.1 that answers every request with `body`. */
export async function loopbackHttp(body: string): Promise<{ port: number; close: () => Promise<void> }> {
  const server: Server = createServer((_request, response) => response.end(body));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
