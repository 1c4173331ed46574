// Cluster nodes as child processes for the tests (node-child.ts), an SSE reader for a session's
// stream on a serve node (FIM frames, ids from the session log's seqs), the frames a session's
// log maps to, and a run's id and state.
import type { ChildProcess } from "node:child_process";
import { FimMapper } from "@tern/server";
import type { EventEntry } from "@tern/session";
import pg from "pg";
import { expect } from "vitest";
import { type Frame, parseSse } from "../../../server/test/support/sse.js";
import { spawnTs } from "../../../session/test/support/spawn.js";

const CHILD = "packages/cluster/test/support/node-child.ts";
/** An SSE reader's pause before reconnecting (EventSource's default is of this order)... */
const RECONNECT_MS = 200;
/**
 * ...doubled after each stream that brought nothing, up to this: a stream ends at once while its
 * session is idle, and thirty idle readers reconnecting five times a second kept the serve nodes
 * busy on a 2-core machine. A reader still catches up from its Last-Event-ID.
 */
const IDLE_RECONNECT_MS = 3200;

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

/** POSTs a message: the node streams the run; resolves with its frames once the run is over. */
export async function submit(url: string, sessionId: string, content: string): Promise<Frame[]> {
  const res = await fetch(`${url}/api/sessions/${sessionId}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ content }),
  });
  expect(res.status).toBe(200);
  return parseSse(await res.text());
}

/** Submits a message and returns the run's id once the node recorded it; the stream is read on. */
export async function startRun(
  url: string,
  pgUrl: string,
  sessionId: string,
  content: string,
): Promise<{ runId: string; ended: Promise<Frame[]> }> {
  const before = await runsOf(pgUrl, sessionId);
  const ended = submit(url, sessionId, content);
  ended.catch(() => {}); // awaited by the tests that need it
  for (;;) {
    const runs = await runsOf(pgUrl, sessionId);
    if (runs.length > before.length) return { runId: runs.at(-1)!, ended };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The session's run ids, oldest first. */
export async function runsOf(pgUrl: string, sessionId: string): Promise<string[]> {
  const rows = await rowsOf(
    pgUrl,
    "select run_id from tern_cluster.runs where session_id = $1 order by created_at, run_id",
    [sessionId],
  );
  return rows.map((row) => row.run_id as string);
}

/** The kinds of the controls sent for the session, oldest first. */
export async function controlsOf(pgUrl: string, sessionId: string): Promise<string[]> {
  const rows = await rowsOf(
    pgUrl,
    "select body->>'kind' as kind from tern_cluster.controls where session_id = $1 order by id",
    [sessionId],
  );
  return rows.map((row) => row.kind as string);
}

/** Whether a worker has taken the steering or interrupt message with this text (run-messages.ts). */
export async function messageTaken(pgUrl: string, text: string): Promise<boolean> {
  const rows = await rowsOf(
    pgUrl,
    "select 1 from tern_cluster.controls where body->>'text' = $1 and taken_at is not null",
    [text],
  );
  return rows.length > 0;
}

async function rowsOf(pgUrl: string, sql: string, params: unknown[]): Promise<Record<string, unknown>[]> {
  const db = new pg.Client({ connectionString: pgUrl });
  await db.connect();
  try {
    return (await db.query(sql, params)).rows;
  } finally {
    await db.end();
  }
}

export interface Seen {
  ids: string[];
  types: string[];
  frames: Frame[];
}

/**
 * Reads a session's SSE stream until aborted. Like an EventSource it reconnects after a drop or
 * the end of a run with Last-Event-ID, so "each frame once" is checked across reconnects too.
 */
export function watch(baseUrl: string, sessionId: string, signal: AbortSignal): Seen {
  const seen: Seen = { ids: [], types: [], frames: [] };
  /** Resolves with how many frames the stream brought. */
  const read = async (request: AbortSignal): Promise<number> => {
    const before = seen.ids.length;
    const last = seen.ids.at(-1);
    const res = await fetch(`${baseUrl}/api/sessions/${sessionId}/events`, {
      signal: request,
      headers: last === undefined ? {} : { "last-event-id": last },
    });
    if (!res.body) return 0;
    const decoder = new TextDecoder();
    let text = "";
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      const end = text.lastIndexOf("\n\n");
      if (end < 0) continue;
      for (const frame of parseSse(text.slice(0, end + 2))) {
        seen.ids.push(frame.id);
        seen.types.push(frame.event);
        seen.frames.push(frame);
      }
      text = text.slice(end + 2);
    }
    return seen.ids.length - before;
  };
  void (async () => {
    let pause = RECONNECT_MS;
    while (!signal.aborted) {
      // One signal per request: the caller's would collect a listener per reconnect.
      const request = new AbortController();
      const stop = () => request.abort();
      signal.addEventListener("abort", stop, { once: true });
      const frames = await read(request.signal).catch(() => 0);
      signal.removeEventListener("abort", stop);
      pause = frames > 0 ? RECONNECT_MS : Math.min(pause * 2, IDLE_RECONNECT_MS);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  })();
  return seen;
}

/** The frames a session's persisted log maps to, with the ids every node gives them. */
export function expectedFrames(events: EventEntry[]): Frame[] {
  const mapper = new FimMapper();
  return events.flatMap(({ seq, event }) =>
    mapper
      .map(event as Parameters<FimMapper["map"]>[0])
      .map((frame, index) => ({ id: index === 0 ? String(seq) : `${seq}.${index}`, ...frame })),
  );
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
