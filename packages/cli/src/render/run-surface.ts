// The surface of `tern run`: the answer on stdout, progress on stderr, a spinner only when stderr
// is a terminal. When both streams are the same terminal, a progress line first ends the text line
// the answer left open, and the spinner waits while a text line is open.
import { Spinner } from "./spinner.js";
import type { Style } from "./style.js";
import type { Surface, Writable } from "./surface.js";

export class RunSurface implements Surface {
  private midLine = false;
  private readonly spinner: Spinner | undefined;
  private wanted: string | undefined;
  private readonly shared: boolean;

  constructor(
    private readonly stdout: Writable,
    private readonly stderr: Writable,
    style: Style,
    /** False in --json mode and for quiet commands: progress is dropped. */
    private readonly progress = true,
  ) {
    this.shared = stdout.isTTY === true && stderr.isTTY === true;
    if (progress && stderr.isTTY) this.spinner = new Spinner((chunk) => stderr.write(chunk), style.dim);
  }

  text(chunk: string): void {
    if (chunk === "") return;
    this.spinner?.clear();
    this.stdout.write(chunk);
    if (this.shared) this.midLine = !chunk.endsWith("\n");
    if (!this.midLine) this.showStatus();
  }

  line(text: string): void {
    if (!this.progress) return;
    this.spinner?.clear();
    if (this.midLine) {
      this.stdout.write("\n");
      this.midLine = false;
    }
    this.stderr.write(`${text}\n`);
    this.showStatus();
  }

  status(text: string | undefined): void {
    this.wanted = text;
    if (text === undefined) this.spinner?.stop();
    else this.showStatus();
  }

  /** Ends an open text line (before the process prints its last words). */
  endText(): void {
    if (this.midLine) this.stdout.write("\n");
    this.midLine = false;
  }

  close(): void {
    this.spinner?.stop();
    this.endText();
  }

  private showStatus(): void {
    if (!this.spinner || this.wanted === undefined || this.midLine) return;
    this.spinner.set(this.wanted);
    this.spinner.resume();
  }
}
