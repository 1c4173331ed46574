// Text from a model or a tool, made safe to print on a terminal: escape sequences (window-title
// OSC, clear-screen, cursor moves, colours, ...) are removed by strip-ansi, and the control
// characters left over (a stray ESC, BEL, backspace, carriage return, C1 controls) are dropped,
// so what a model writes cannot drive the terminal. Newlines and tabs stay. Only what goes to a
// terminal is cleaned: --json, pipes and the session keep the text as it was sent.
import stripAnsi from "strip-ansi";

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to drop
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * The tail of a chunk that may be the start of an escape sequence the next chunk completes: a CSI
 * still in its parameter bytes, an OSC/DCS/APC string not yet terminated (BEL or ST), or an ESC
 * with nothing after it but intermediate bytes.
 */
const UNFINISHED =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences start with control characters
  /(?:\u001b\[|\u009b)[\u0020-\u003f]*$|(?:\u001b[\]PX^_k]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u0018\u001a\u001b\u0080-\u009f]*\u001b?$|\u001b[\u0020-\u002f]*$/;

/** Longest tail held back waiting for its sequence to end; past it the text is let through. */
const MAX_HELD_CHARS = 4096;

export function terminalText(text: string): string {
  return stripAnsi(text).replace(CONTROL, "");
}

/** `terminalText` for text that streams in chunks: a sequence split across chunks is still removed. */
export class TerminalTextFilter {
  private held = "";

  push(chunk: string): string {
    const text = this.held + chunk;
    const unfinished = UNFINISHED.exec(text);
    const cut =
      unfinished && text.length - unfinished.index <= MAX_HELD_CHARS ? unfinished.index : text.length;
    this.held = text.slice(cut);
    return terminalText(text.slice(0, cut));
  }

  /** What is still held, cleaned (the stream ended). */
  flush(): string {
    const rest = terminalText(this.held);
    this.held = "";
    return rest;
  }
}
