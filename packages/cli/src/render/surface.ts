// Where progress goes. `run` writes the answer to stdout and progress to stderr; `chat` writes
// both to the terminal above its input line. The renderer talks to this interface only.

export interface Surface {
  /** Assistant text as it streams (may be mid-line). */
  text(chunk: string): void;
  /** One progress line; an open text line is ended first. */
  line(text: string): void;
  /** A transient status such as a spinner ("thinking…"); undefined clears it. Only shown on a terminal. */
  status(text: string | undefined): void;
}

export interface Writable {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}
