// Markdown answers cut for a terminal block by block as the text streams in: a block is drawn
// (by terminal-markdown.ts's renderer) once a blank line outside a code fence ends it, the rest
// when the message ends. Only for terminals; a pipe gets the text as the model wrote it.

/** Cuts streamed text into whole Markdown blocks and renders each as soon as it is complete. */
export class MarkdownStream {
  private pending = "";

  constructor(private readonly render: (markdown: string) => string) {}

  /** Adds text; returns what became renderable (possibly ""). */
  push(chunk: string): string {
    this.pending += chunk;
    const end = lastBlockEnd(this.pending);
    if (end <= 0) return "";
    const block = this.pending.slice(0, end);
    this.pending = this.pending.slice(end);
    return this.draw(block, "\n\n");
  }

  /** Renders whatever is left (the message ended). */
  flush(): string {
    const rest = this.pending;
    this.pending = "";
    return rest.trim() === "" ? "" : this.draw(rest, "\n");
  }

  private draw(markdown: string, after: string): string {
    const out = this.render(markdown).replace(/\s+$/, "");
    return out === "" ? "" : `${out}${after}`;
  }
}

/** Where the last complete block ends: after the last blank line that is outside a code fence. */
function lastBlockEnd(text: string): number {
  let inFence = false;
  let end = -1;
  let offset = 0;
  const lines = text.split("\n");
  // The last element is an unfinished line; only whole lines count.
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!;
    offset += line.length + 1;
    if (/^\s{0,3}(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence && line.trim() === "" && i > 0) end = offset;
  }
  return end;
}
