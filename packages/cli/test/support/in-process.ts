// Runs a tern command inside the test's own process: the built bundle's `runCli` with pipes for
// stdin, stdout and stderr, the environment and working directory the test names. Same code and
// same output as the `tern` child process (the bundle, not the sources), without paying a Node
// start and the command's module load for every call (~0.4 s of CPU each, hundreds a suite).
// What is about the process itself (signals, exit on a second Ctrl-C, stdio of a real pipe, the
// entry file's own answers) stays with spawnTern and runTernProcess.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Readable, Writable } from "node:stream";
import type { Io } from "../../src/cli/io.js";
import { TERN_JS } from "./build.js";
import type { TernResult } from "./tern.js";

interface App {
  runCli(argv: string[], io: Io): Promise<number>;
}

export interface InProcessOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  input?: string;
}

let app: App | undefined;

/** The bundle's command table, loaded by Node itself (not the test runner's transform) once a file. */
function bundledApp(): App {
  app ??= createRequire(import.meta.url)(join(dirname(TERN_JS), "tern-app.js")) as App;
  return app;
}

/** A pipe that is no terminal, as a child's stdout is. */
function capture(append: (text: string) => void): NodeJS.WriteStream {
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      append(typeof chunk === "string" ? chunk : chunk.toString("utf8"));
      done();
    },
  });
  return Object.assign(stream, { isTTY: false }) as unknown as NodeJS.WriteStream;
}

export async function runInProcess(args: string[], options: InProcessOptions): Promise<TernResult> {
  let stdout = "";
  let stderr = "";
  const stdin = Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]);
  const code = await bundledApp().runCli(args, {
    stdin: Object.assign(stdin, { isTTY: false }) as unknown as NodeJS.ReadStream,
    stdout: capture((text) => {
      stdout += text;
    }),
    stderr: capture((text) => {
      stderr += text;
    }),
    env: options.env,
    cwd: options.cwd,
  });
  return { code, signal: null, stdout, stderr };
}
