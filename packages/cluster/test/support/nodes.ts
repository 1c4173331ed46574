// Cluster nodes as child processes for the tests (node-child.ts), and a raw SSE reader for a
// session's event stream on a serve node.
import type { ChildProcess } from "node:child_process";
import { expect } from "vitest";
import { parseSse } from "../../../server/test/support/sse.js";
import { spawnTs } from "../../../session/test/support/spawn.js";

const CHILD = "packages/cluster/test/support/node-child.ts";
/** An SSE reader's pause before reconnecting (EventSource's default is of this order). */
const RECONNECT_MS = 200;

export interface NodeSetup {
  pgUrl: string;
  home: string;
  modelUrl: string;
  leaseMs: number;
  /** Workers ask a client before each tool call. */
  ask?: boolean;
  /** Runs at once per worker (default 4). */
  concurrency?: number;
  /** The nodes' session store: "pg" (the PostgreSQL store) or the shared file store (default). */
  store?: "pg" | "file";
}

export class Nodes {
  private readonly children = new Set<ChildProcess>();

  constructor(private readonly setup: NodeSetup) {}

  /**
   * Starts a node; resolves with its process and (for a front) its URL once it says "ready".
   * `extraEnv` reaches only this child (TERN_CLUSTER_TEST_KILL: node-child.ts).
   */
  spawn(
    role: "worker" | "front",
    extraEnv: NodeJS.ProcessEnv = {},
  ): Promise<{ child: ChildProcess; url: string }> {
    const { pgUrl, home, modelUrl, leaseMs, ask, concurrency, store } = this.setup;
    const env = {
      ...process.env,
      ...(concurrency === undefined ? {} : { TERN_CLUSTER_CONCURRENCY: String(concurrency) }),
      ...(store === undefined ? {} : { TERN_CLUSTER_TEST_STORE: store }),
      ...extraEnv,
    };
    const child = spawnTs(
      CHILD,
      [role, pgUrl, home, modelUrl, String(leaseMs), ...(ask ? ["ask"] : [])],
      env,
    );
    this.children.add(child);
    child.once("exit", () => this.children.delete(child));
    return new Promise((resolve, reject) => {
      let out = "";
      let err = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        err += chunk.toString();
      });
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split("\n").find((l) => l.startsWith("ready"));
        if (line) resolve({ child, url: line.slice("ready".length).trim() });
      });
      child.once("exit", (code) => reject(new Error(`${role} exited (${code}) before ready: ${err}`)));
    });
  }

  killAll(): void {
    for (const child of this.children) child.kill("SIGKILL");
  }
}

export async function post(url: string, body: unknown = {}): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

export interface Seen {
  ids: number[];
  types: string[];
  events: Record<string, unknown>[];
}

/**
 * Reads a session's SSE stream until aborted, collecting frame ids, types and data. Like an
 * EventSource it reconnects after a drop with Last-Event-ID, so "each event once" is checked
 * across reconnects too.
 */
export function watch(baseUrl: string, sessionId: string, signal: AbortSignal): Seen {
  const seen: Seen = { ids: [], types: [], events: [] };
  const read = async () => {
    const last = seen.ids.at(-1);
    const res = await fetch(`${baseUrl}/api/sessions/${sessionId}/events`, {
      signal,
      headers: last === undefined ? {} : { "last-event-id": String(last) },
    });
    const decoder = new TextDecoder();
    let text = "";
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      const end = text.lastIndexOf("\n\n");
      if (end < 0) continue;
      for (const frame of parseSse(text.slice(0, end + 2))) {
        seen.ids.push(Number(frame.id));
        seen.types.push(frame.event);
        seen.events.push(frame.data);
      }
      text = text.slice(end + 2);
    }
  };
  void (async () => {
    while (!signal.aborted) {
      await read().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    }
  })();
  return seen;
}

/** Polls until `check` holds (a ceiling for hangs is the test's timeout). */
export async function until(check: () => boolean | Promise<boolean>, pollMs = 100): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, pollMs));
}

export async function runState(frontUrl: string, runId: string): Promise<string> {
  const res = await fetch(`${frontUrl}/api/runs/${runId}`);
  const { run } = (await res.json()) as { run: { state: string } };
  return run.state;
}
