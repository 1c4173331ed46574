// A one-line spinner for terminals. The owner clears it before writing anything else.

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const INTERVAL_MS = 80;

export class Spinner {
  private timer: ReturnType<typeof setInterval> | undefined;
  private frame = 0;
  private text: string | undefined;
  private shown = false;
  private startedAt = 0;

  constructor(
    private readonly write: (chunk: string) => void,
    private readonly decorate: (text: string) => string = (text) => text,
  ) {}

  get visible(): boolean {
    return this.shown;
  }

  set(text: string | undefined): void {
    if (text === this.text) return;
    if (text === undefined) {
      this.stop();
      return;
    }
    if (this.text === undefined) this.startedAt = Date.now();
    this.text = text;
    if (!this.timer) {
      this.timer = setInterval(() => this.draw(), INTERVAL_MS);
      this.timer.unref?.();
    }
    this.draw();
  }

  /** Erases the line (the owner is about to write); the next tick draws it again. */
  clear(): void {
    if (!this.shown) return;
    this.write("\r\u001b[2K");
    this.shown = false;
  }

  /** Redraws at once if it is running (after the owner wrote a full line). */
  resume(): void {
    if (this.text !== undefined && !this.shown) this.draw();
  }

  stop(): void {
    this.clear();
    this.text = undefined;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private draw(): void {
    if (this.text === undefined) return;
    this.frame = (this.frame + 1) % FRAMES.length;
    const seconds = ((Date.now() - this.startedAt) / 1000).toFixed(0);
    this.write(`\r\u001b[2K${this.decorate(`${FRAMES[this.frame]} ${this.text} ${seconds}s`)}`);
    this.shown = true;
  }
}
