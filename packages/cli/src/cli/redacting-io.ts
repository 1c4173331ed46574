// Nothing tern prints carries a key: stdout and stderr are wrapped so every write passes the
// redactor, whoever writes (the answer, progress lines, --json events, error lines, warnings,
// serve's log). The redactor starts with the values of key-like environment variables and learns
// the key in use when a command resolves it. Each write is redacted whole, never held back, so a
// terminal shows what it was sent at once; streamed answers arrive here already redacted across
// their deltas (the session agent's redactStream), and what else tern writes goes out in whole lines.
import { StringDecoder } from "node:string_decoder";
import { Redactor } from "@tern/ai";
import { secretsInEnvironment } from "@tern/session";
import type { Io } from "./io.js";

/** `io` with redacting stdout and stderr and the redactor they share. */
export function redactingIo(io: Io): Io {
  const redactor = io.redactor ?? new Redactor(secretsInEnvironment(io.env));
  // Each stream is wrapped when first used, as processIo builds it: unread, it costs nothing.
  let stdout: NodeJS.WriteStream | undefined;
  let stderr: NodeJS.WriteStream | undefined;
  return {
    get stdin() {
      return io.stdin;
    },
    get stdout() {
      stdout ??= redacting(io.stdout, redactor);
      return stdout;
    },
    get stderr() {
      stderr ??= redacting(io.stderr, redactor);
      return stderr;
    },
    env: io.env,
    cwd: io.cwd,
    redactor,
  };
}

type WriteCallback = (error?: Error | null) => void;

/** The stream itself for everything but `write`, which redacts first. */
function redacting(stream: NodeJS.WriteStream, redactor: Redactor): NodeJS.WriteStream {
  // Bytes may end inside a character: the decoder keeps the partial character for the next write.
  const decoder = new StringDecoder("utf8");
  const write = (
    chunk: string | Uint8Array,
    encoding?: BufferEncoding | WriteCallback,
    callback?: WriteCallback,
  ): boolean => {
    const done = typeof encoding === "function" ? encoding : callback;
    const text = redactor.text(typeof chunk === "string" ? chunk : decoder.write(Buffer.from(chunk)));
    return done ? stream.write(text, done) : stream.write(text);
  };
  return new Proxy(stream, {
    get(target, property) {
      if (property === "write") return write;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
