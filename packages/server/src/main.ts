// A runnable `tern serve` (see serve-args.ts for the flags). It prints "http listening on <url>"
// and "listening on port <n>" (the Copilot CLI's line, for the JSON-RPC port) to stdout, or to
// stderr under --stdio, where stdout carries the protocol.

import { type Served, serve } from "./serve.js";
import { engineOptions, parseServeArgs } from "./serve-args.js";

async function main(): Promise<void> {
  const args = parseServeArgs(process.argv.slice(2));
  const say = (line: string) => (args.stdio ? process.stderr : process.stdout).write(`${line}\n`);
  let stopping = false;
  let served: Served | undefined;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await served?.close().catch(() => {});
    process.exit(0);
  };
  served = await serve({
    engine: engineOptions(args),
    stdio: args.stdio,
    ...(args.port !== undefined ? { port: args.port } : {}),
    ...(args.rpcPort !== undefined ? { rpcPort: args.rpcPort } : {}),
    ...(args.host !== undefined ? { host: args.host } : {}),
    ...(args.token !== undefined ? { token: args.token } : {}),
    onShutdown: () => void stop(),
  });
  if (served.http) say(`http listening on ${served.http.url}`);
  if (served.rpc) say(`listening on port ${served.rpc.port}`);
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`tern serve: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
