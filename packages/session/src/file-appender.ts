// Appends whole lines to a session file. Each line goes out in one write call on an O_APPEND fd,
// so a killed process leaves the whole line or, at worst, a partial last line that the loader
// recognises (power loss; or SIGKILL, at which Linux stops a write between pages) and the next
// writer acknowledges: a line is only acknowledged after its write returned. fsync makes a turn
// durable.
import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from "node:fs";
import type { FsyncMode } from "./types.js";

export class FileAppender {
  private fd: number | undefined;
  private dirty = false;

  /** Opens `path` for appending; `create` makes a new file and fails if it exists. */
  constructor(
    readonly path: string,
    private readonly fsync: FsyncMode,
    create = false,
  ) {
    this.fd = openSync(path, create ? "ax+" : "a+");
  }

  /** Whether the file is empty or ends with a newline (if not, the next line must start a new one). */
  endsWithNewline(): boolean {
    const fd = this.openFd();
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  }

  /** Writes `text` (one or more whole lines, each ending in "\n") in a single write call. */
  write(text: string): void {
    const fd = this.openFd();
    const bytes = Buffer.from(text, "utf8");
    let offset = 0;
    // One call writes it all for regular files; the loop only guards against a short write.
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    this.dirty = true;
    if (this.fsync === "always") this.sync();
  }

  /** The end of a turn: reaches the disk unless fsync is "never". */
  flush(): void {
    if (this.fsync !== "never" && this.dirty) this.sync();
  }

  close(): void {
    if (this.fd === undefined) return;
    this.flush();
    closeSync(this.fd);
    this.fd = undefined;
  }

  get closed(): boolean {
    return this.fd === undefined;
  }

  private sync(): void {
    fsyncSync(this.openFd());
    this.dirty = false;
  }

  private openFd(): number {
    if (this.fd === undefined) throw new Error(`${this.path}: session file is closed`);
    return this.fd;
  }
}
