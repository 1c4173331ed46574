// The input line of `tern chat`: a buffer, a cursor, and history. Pure state; keys map onto it.

export class LineEditor {
  private text = "";
  private position = 0;
  private readonly history: string[] = [];
  private browsing = -1;
  private draft = "";

  get buffer(): string {
    return this.text;
  }

  get cursor(): number {
    return this.position;
  }

  insert(chunk: string): void {
    this.text = this.text.slice(0, this.position) + chunk + this.text.slice(this.position);
    this.position += chunk.length;
  }

  backspace(): void {
    if (this.position === 0) return;
    const step = charBefore(this.text, this.position);
    this.text = this.text.slice(0, this.position - step) + this.text.slice(this.position);
    this.position -= step;
  }

  deleteForward(): void {
    if (this.position >= this.text.length) return;
    const step = charAt(this.text, this.position);
    this.text = this.text.slice(0, this.position) + this.text.slice(this.position + step);
  }

  left(): void {
    if (this.position > 0) this.position -= charBefore(this.text, this.position);
  }

  right(): void {
    if (this.position < this.text.length) this.position += charAt(this.text, this.position);
  }

  home(): void {
    this.position = 0;
  }

  end(): void {
    this.position = this.text.length;
  }

  /** Ctrl-U: everything before the cursor. */
  killBefore(): void {
    this.text = this.text.slice(this.position);
    this.position = 0;
  }

  /** Ctrl-K: everything after the cursor. */
  killAfter(): void {
    this.text = this.text.slice(0, this.position);
  }

  /** Ctrl-W: the word before the cursor. */
  deleteWordBefore(): void {
    const before = this.text.slice(0, this.position).replace(/\S+\s*$/, "");
    this.text = before + this.text.slice(this.position);
    this.position = before.length;
  }

  clear(): void {
    this.text = "";
    this.position = 0;
    this.browsing = -1;
  }

  /** Takes the line out (for sending) and remembers it. */
  take(): string {
    const line = this.text;
    if (line.trim() !== "" && this.history.at(-1) !== line) this.history.push(line);
    this.clear();
    return line;
  }

  historyUp(): void {
    if (this.history.length === 0) return;
    if (this.browsing === -1) {
      this.draft = this.text;
      this.browsing = this.history.length;
    }
    if (this.browsing > 0) this.browsing--;
    this.text = this.history[this.browsing]!;
    this.position = this.text.length;
  }

  historyDown(): void {
    if (this.browsing === -1) return;
    this.browsing++;
    if (this.browsing >= this.history.length) {
      this.browsing = -1;
      this.text = this.draft;
    } else this.text = this.history[this.browsing]!;
    this.position = this.text.length;
  }
}

/** UTF-16 units of the character before `index` (2 for a surrogate pair). */
function charBefore(text: string, index: number): number {
  const code = text.charCodeAt(index - 1);
  return code >= 0xdc00 && code <= 0xdfff && index >= 2 ? 2 : 1;
}

function charAt(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff ? 2 : 1;
}
