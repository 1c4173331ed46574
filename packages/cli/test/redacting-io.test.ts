// The CLI's redacting stdout/stderr: every write passes the redactor, strings and bytes alike, and
// the stream is otherwise the process's own (its TTY flags, its events).
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { Io } from "../src/cli/io.js";
import { redactingIo } from "../src/cli/redacting-io.js";

const KEY = "tern-test-key-Io42xQ9vT";

/** A real Writable that keeps what it was given, standing in for a terminal. */
function sink(): { stream: NodeJS.WriteStream; written: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  stream.isTTY = true;
  return { stream, written: () => Buffer.concat(chunks).toString("utf8") };
}

function io(env: NodeJS.ProcessEnv = {}) {
  const out = sink();
  const err = sink();
  const wrapped = redactingIo({
    stdin: process.stdin,
    stdout: out.stream,
    stderr: err.stream,
    env,
    cwd: "/",
  } satisfies Io);
  return { wrapped, out, err };
}

describe("redactingIo", () => {
  it("redacts what the key-like environment holds from the start, and the key added later", async () => {
    const { wrapped, out, err } = io({ OPENAI_API_KEY: "env-key-0123456789", HOME: "/home/someone" });
    wrapped.stdout.write("from env: env-key-0123456789, home /home/someone\n");
    wrapped.stderr.write(`tern: refused the API key (401 ${KEY})\n`);
    // Written before the command resolved the key: nothing to hide yet. From now on, every spelling.
    wrapped.redactor?.add([KEY]);
    await new Promise<void>((done) =>
      wrapped.stderr.write(`again ${Buffer.from(KEY).toString("base64")}\n`, () => done()),
    );
    expect(out.written()).toBe("from env: [REDACTED], home /home/someone\n");
    expect(err.written()).toMatch(
      new RegExp(`^tern: refused the API key \\(401 ${KEY}\\)\\nagain \\[REDACTED\\]`),
    );
  });

  it("takes bytes too, a character cut between two writes included", () => {
    const { wrapped, out } = io();
    wrapped.redactor?.add([KEY]);
    const bytes = Buffer.from(`é ${KEY} ü\n`);
    wrapped.stdout.write(bytes.subarray(0, 1));
    wrapped.stdout.write(bytes.subarray(1));
    expect(out.written()).toBe("é [REDACTED] ü\n");
  });

  it("is otherwise the stream itself", () => {
    const { wrapped, out } = io();
    expect(wrapped.stdout.isTTY).toBe(true);
    let finished = false;
    wrapped.stdout.on("finish", () => {
      finished = true;
    });
    wrapped.stdout.end();
    return new Promise<void>((done) =>
      out.stream.on("finish", () => {
        expect(finished).toBe(true);
        done();
      }),
    );
  });
});
