// The terminal of `tern chat`: output scrolls above a bottom area that holds the open (partial)
// output line, a status line while the agent works, and the input line. Every write erases the
// bottom area, prints what is complete, and draws the bottom area again, so typing and streaming
// never mix. Plain ANSI: cursor up, erase below, column.

import { type Style, visibleWidth } from "../render/style.js";
import type { Surface, Writable } from "../render/surface.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export class ChatScreen implements Surface {
  private partial = "";
  private statusText: string | undefined;
  private statusSince = 0;
  private hintText = "";
  private prompt = "";
  private input = "";
  private cursor = 0;
  /** Rows from the top of the drawn bottom area to the cursor's row; -1 when nothing is drawn. */
  private cursorRow = -1;
  private frame = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  constructor(
    private readonly out: Writable,
    private readonly style: Style,
  ) {}

  // ---------------------------------------------------------------- Surface

  text(chunk: string): void {
    if (chunk === "" || this.closed) return;
    this.clearBottom();
    // Tabs and carriage returns would throw off the width count of the open line.
    const full = this.partial + chunk.replace(/\t/g, "    ").replace(/\r(?!\n)/g, "");
    const end = full.lastIndexOf("\n");
    if (end >= 0) {
      this.write(full.slice(0, end + 1));
      this.partial = full.slice(end + 1);
    } else this.partial = full;
    this.drawBottom();
  }

  line(text: string): void {
    if (this.closed) return;
    this.clearBottom();
    if (this.partial !== "") {
      this.write(`${this.partial}\n`);
      this.partial = "";
    }
    this.write(`${text}\n`);
    this.drawBottom();
  }

  status(text: string | undefined): void {
    if (text === this.statusText) return;
    if (text !== undefined && this.statusText === undefined) this.statusSince = Date.now();
    this.statusText = text;
    if (text !== undefined && !this.timer) {
      this.timer = setInterval(() => {
        this.frame = (this.frame + 1) % FRAMES.length;
        this.render();
      }, 100);
      this.timer.unref?.();
    }
    if (text === undefined && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    this.render();
  }

  // ---------------------------------------------------------------- input area

  setInput(prompt: string, input: string, cursor: number): void {
    this.prompt = prompt;
    this.input = input;
    this.cursor = cursor;
    this.render();
  }

  /** Keys that work right now, shown after the status. */
  setHint(hint: string): void {
    this.hintText = hint;
    this.render();
  }

  render(): void {
    if (this.closed) return;
    this.clearBottom();
    this.drawBottom();
  }

  /** Erases the bottom area and stops drawing (before exit). Output already written stays. */
  close(): void {
    if (this.closed) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clearBottom();
    if (this.partial !== "") this.write(`${this.partial}\n`);
    this.partial = "";
    this.closed = true;
  }

  // ---------------------------------------------------------------- drawing

  private columns(): number {
    return Math.max(10, this.out.columns ?? 80);
  }

  private write(text: string): void {
    // Raw mode may leave output post-processing off: move to column 0 on every newline ourselves.
    this.out.write(text.replace(/\r?\n/g, "\r\n"));
  }

  private clearBottom(): void {
    if (this.cursorRow < 0) return;
    this.out.write(`\r${this.cursorRow > 0 ? `\u001b[${this.cursorRow}A` : ""}\u001b[J`);
    this.cursorRow = -1;
  }

  private rows(text: string): number {
    return Math.max(1, Math.ceil(visibleWidth(text) / this.columns()));
  }

  private drawBottom(): void {
    const cols = this.columns();
    const lines: string[] = [];
    if (this.partial !== "") lines.push(this.partial);
    if (this.statusText !== undefined) {
      const seconds = Math.floor((Date.now() - this.statusSince) / 1000);
      const status = `${FRAMES[this.frame]} ${this.statusText} ${seconds}s${this.hintText ? ` · ${this.hintText}` : ""}`;
      lines.push(this.style.dim(fit(status, cols - 1)));
    } else if (this.hintText) lines.push(this.style.dim(fit(this.hintText, cols - 1)));
    let above = 0;
    for (const line of lines) above += this.rows(line);
    // A multi-line input: later lines are indented under the first line's text.
    const pad = " ".repeat(visibleWidth(this.prompt));
    const inputLines = this.input
      .split("\n")
      .map((text, index) => `${index === 0 ? this.prompt : pad}${text}`);
    // The trailing space gives the cursor a cell to sit on at the end of the line.
    inputLines[inputLines.length - 1] += " ";
    const beforeCursor = this.input.slice(0, this.cursor).split("\n");
    const cursorLine = beforeCursor.length - 1;
    let targetRow = 0;
    for (const line of inputLines.slice(0, cursorLine)) targetRow += this.rows(line);
    const target = visibleWidth(pad) + visibleWidth(beforeCursor[cursorLine]!);
    targetRow += Math.floor(target / cols);
    let endRow = -1;
    for (const line of inputLines) endRow += this.rows(line);
    let moves = "";
    if (endRow > targetRow) moves += `\u001b[${endRow - targetRow}A`;
    moves += `\u001b[${(target % cols) + 1}G`;
    this.out.write(`${lines.map((line) => `${line}\r\n`).join("")}${inputLines.join("\r\n")}${moves}`);
    this.cursorRow = above + targetRow;
  }
}

/** Cuts a status line to the width, so it never wraps. */
function fit(text: string, width: number): string {
  if (visibleWidth(text) <= width) return text;
  let out = "";
  for (const char of text) {
    if (visibleWidth(out + char) > width - 1) break;
    out += char;
  }
  return `${out}…`;
}
