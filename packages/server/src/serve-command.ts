// `tern serve`: parses the flags, starts what they ask for, prints the lines clients wait for,
// and resolves with an exit code once the server is shut down (signal or a client's request).
// "http listening on <url>" and "listening on port <n>" (the Copilot CLI's line for the
// JSON-RPC port) go to stdout, or to stderr under --stdio, where stdout carries the protocol.

import { createSandbox, describeSandbox, sandboxWarning } from "@tern/tools";
import { type Served, serve } from "./serve.js";
import { engineOptions, parseServeArgs } from "./serve-args.js";

export async function runServeCommand(argv: string[]): Promise<number> {
  const args = parseServeArgs(argv);
  const say = (line: string) => (args.stdio ? process.stderr : process.stdout).write(`${line}\n`);
  let served: Served | undefined;
  let finished: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finished = resolve;
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await served?.close().catch(() => {});
    finished(0);
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
  if (args.tools === "coding") {
    // Once, at start: where the sandbox cannot run, bash calls fail until --sandbox off.
    const sandbox = await createSandbox({ profile: args.sandbox, allowNet: args.allowNet }).status();
    process.stderr.write(`tern serve: bash: ${sandboxWarning(sandbox) ?? describeSandbox(sandbox)}\n`);
  }
  if (served.http) say(`http listening on ${served.http.url}`);
  if (served.rpc) say(`listening on port ${served.rpc.port}`);
  process.once("SIGINT", () => void stop());
  process.once("SIGTERM", () => void stop());
  return done;
}
