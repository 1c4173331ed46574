// A real `tern serve` child process for the server's end-to-end tests, and a reader for its SSE
// streams that waits for the frame a test needs (a permission question in the middle of a run).
import { request } from "node:http";
import { afterAll } from "vitest";
import { type Frame, JSON_TYPE, parseSse } from "../../../server/test/support/sse.js";
import { spawnTern, type TernProcess, ternEnv } from "./tern.js";

export { type Frame, JSON_TYPE } from "../../../server/test/support/sse.js";

const running: TernProcess[] = [];

afterAll(async () => {
  for (const proc of running.splice(0)) {
    proc.child.kill();
    await proc.done;
  }
});

export interface Served {
  proc: TernProcess;
  /** http://127.0.0.1:PORT, when HTTP is served. */
  base: string;
  /** The JSON-RPC port, when served. */
  rpcPort: number;
}

/** Starts `tern serve ARGS` and resolves once it printed the lines of the listeners it was asked for. */
export async function startServe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const proc = spawnTern(["serve", ...args], { env: ternEnv(env) });
  running.push(proc);
  const wantsHttp = args.includes("--port");
  const wantsRpc = args.includes("--rpc-port");
  const exited = proc.done.then((result) => {
    throw new Error(`tern serve exited (${result.code}): ${result.stderr}`);
  });
  if (wantsHttp) await Promise.race([proc.waitFor(/http listening on \S+/, "stdout"), exited]);
  if (wantsRpc) await Promise.race([proc.waitFor(/listening on port \d+/, "stdout"), exited]);
  return {
    proc,
    base: /http listening on (\S+)/.exec(proc.stdout)?.[1] ?? "",
    rpcPort: Number(/listening on port (\d+)/.exec(proc.stdout)?.[1] ?? 0),
  };
}

/**
 * `tern serve` on an ephemeral HTTP port, answering with the scripted model at `modelUrl` (as model
 * "scripted"), with TERN home `home`, working in `cwd`; `extra` adds flags.
 */
export function startScriptedServe(
  modelUrl: string,
  home: string,
  cwd: string,
  extra: string[] = [],
): Promise<Served> {
  return startServe([
    "--port",
    "0",
    "--base-url",
    modelUrl,
    "--model",
    "scripted",
    "--home",
    home,
    "--cwd",
    cwd,
    ...extra,
  ]);
}

/** Opens a session on the served tern at `base` over HTTP; resolves with its id. */
export async function openSession(base: string): Promise<string> {
  const created = await fetch(`${base}/api/sessions`, { method: "POST", headers: JSON_TYPE, body: "{}" });
  return ((await created.json()) as { session: { id: string } }).session.id;
}

/** A new session on the served tern at `base`, sent `content`: every frame of the run's stream. */
export async function promptNewSession(base: string, content: string): Promise<Frame[]> {
  const id = await openSession(base);
  const reply = await fetch(`${base}/api/sessions/${id}/messages`, {
    method: "POST",
    headers: JSON_TYPE,
    body: JSON.stringify({ content }),
  });
  return sseReader(reply).all();
}

/** An SSE response read as it arrives: `until` resolves with the frames up to the first match. */
export function sseReader(res: Response) {
  const frames: Frame[] = [];
  let text = "";
  let ended = false;
  const waiters = new Set<() => void>();
  const reader = res.body!.getReader();
  const pump = (async () => {
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        const cut = text.lastIndexOf("\n\n");
        if (cut >= 0) {
          frames.push(...parseSse(text.slice(0, cut + 2)));
          text = text.slice(cut + 2);
        }
        for (const wake of [...waiters]) wake();
      }
    } catch {}
    ended = true;
    for (const wake of [...waiters]) wake();
  })();
  return {
    frames,
    /** The first frame (from the start) that matches; rejects if the stream ends first. */
    until(match: (frame: Frame) => boolean): Promise<Frame> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = frames.find(match);
          if (found) {
            waiters.delete(check);
            resolve(found);
          } else if (ended) {
            waiters.delete(check);
            reject(new Error(`the stream ended without the frame: ${JSON.stringify(frames)}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    /** Stops reading (the client goes away). */
    async cancel(): Promise<void> {
      await reader.cancel().catch(() => {});
      await pump;
    },
    /** Every frame once the server ended the stream. */
    async all(): Promise<Frame[]> {
      await pump;
      return frames;
    },
  };
}

/** A raw HTTP request with headers fetch would not send as given (Host). */
export function rawRequest(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: options.method ?? "GET",
        headers: options.headers,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}
