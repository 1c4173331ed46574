// The real MCP servers the tests start: the npm reference servers (everything, filesystem, memory)
// and the fault server next to this file, as stdio configurations, and the everything server
// over HTTP on a free loopback port.

import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { StdioServerConfig } from "../../src/config.js";

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

/** The bin script of an npm server package (run with this node, no npx, no network). */
function binOf(pkg: string): string {
  const manifest = require(`${pkg}/package.json`) as { bin: Record<string, string> | string };
  const bin = typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin)[0]!;
  return join(dirname(require.resolve(`${pkg}/package.json`)), bin);
}

export function nodeServer(
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
): StdioServerConfig {
  return { type: "stdio", command: process.execPath, args: [script, ...args], env };
}

export const everythingBin = binOf("@modelcontextprotocol/server-everything");
export const filesystemBin = binOf("@modelcontextprotocol/server-filesystem");
export const memoryBin = binOf("@modelcontextprotocol/server-memory");
export const faultServer = join(here, "fault-server.mjs");
const authServer = join(here, "auth-server.mjs");

export function fault(
  mode: "exit" | "hang" | "once" | "tools",
  env: Record<string, string> = {},
): StdioServerConfig {
  return nodeServer(faultServer, [mode], env);
}

/** A free loopback port (a tiny race with other processes; the caller retries on "in use"). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export interface RunningHttpServer {
  url: string;
  stop(): Promise<void>;
}

const READY_LINE = { streamableHttp: "listening on port", sse: "running on port" } as const;
const START_ATTEMPTS = 3;

/** The everything server in its HTTP mode ("streamableHttp" or the old "sse"). */
export async function startEverythingHttp(mode: "streamableHttp" | "sse"): Promise<RunningHttpServer> {
  let lastError: unknown;
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    const port = await freePort();
    const child = spawn(process.execPath, [everythingBin, mode], {
      env: { PATH: process.env.PATH ?? "", PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      await waitForLine(child, READY_LINE[mode]);
    } catch (error) {
      lastError = error;
      child.kill("SIGKILL");
      continue;
    }
    const path = mode === "sse" ? "/sse" : "/mcp";
    return { url: `http://127.0.0.1:${port}${path}`, stop: () => stopChild(child) };
  }
  throw lastError;
}

function waitForLine(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) resolve();
      if (seen.includes("already in use")) reject(new Error(seen));
    });
    child.once("exit", (code) => reject(new Error(`server exited (${code}): ${seen}`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** The auth server next to this file: streamable HTTP that wants `Authorization: Bearer <token>`. */
export async function startAuthServer(token: string): Promise<RunningHttpServer> {
  const child = spawn(process.execPath, [authServer], {
    env: { PATH: process.env.PATH ?? "", TOKEN: token },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening (\d+)/.exec(seen);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`auth server exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => stopChild(child) };
}
