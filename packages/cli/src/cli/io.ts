// The process's streams and environment, passed to commands so they never reach for globals.
// What a command writes to stdout and stderr passes the redactor first (see redacting-io.ts).
import type { Redactor } from "@tern/ai";

export interface Io {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The secrets no output may show; the key in use is added once it is known (ensureConfiguredKey). */
  redactor?: Redactor;
}

export function processIo(): Io {
  return {
    // Reading process.stdin builds its stream (milliseconds for a pipe); most commands never do.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  };
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  stream.setEncoding("utf8");
  for await (const chunk of stream) text += chunk;
  return text;
}
