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

/** The process's own streams, with a way to wait for those this run wrote to. */
export interface ProcessIo extends Io {
  /** Calls `done` once stdout and stderr have flushed, skipping a stream nothing built. */
  flush(done: () => void): void;
}

export function processIo(): ProcessIo {
  // Reading a process stream builds it (milliseconds for a pipe, which loads node:net): most
  // commands never read stdin, and most runs write nothing to stderr.
  let stdoutBuilt = false;
  let stderrBuilt = false;
  return {
    get stdin() {
      return process.stdin;
    },
    get stdout() {
      stdoutBuilt = true;
      return process.stdout;
    },
    get stderr() {
      stderrBuilt = true;
      return process.stderr;
    },
    env: process.env,
    cwd: process.cwd(),
    flush(done) {
      // An empty write's callback runs once everything written before it is out.
      const flushStderr = () => (stderrBuilt ? process.stderr.write("", () => done()) : done());
      if (stdoutBuilt) process.stdout.write("", flushStderr);
      else flushStderr();
    },
  };
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  stream.setEncoding("utf8");
  for await (const chunk of stream) text += chunk;
  return text;
}
