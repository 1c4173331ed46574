/**
 * Splits content into text and thinking at `<think>` / `</think>` (models served without a
 * reasoning parser put their reasoning inline). Tags may arrive split across deltas, so a tail
 * that could start a tag is held back until the next delta or `flush()`. Whitespace right after
 * a tag and before `</think>` is dropped: it only separates the tags from the words.
 */
export class ThinkTagSplitter {
  private inThink = false;
  private held = "";
  private trimStart = false;
  /** Trailing whitespace of the thinking so far, emitted only if more thinking follows. */
  private thinkingSpace = "";

  constructor(private readonly emit: (kind: "text" | "thinking", text: string) => void) {}

  push(delta: string): void {
    let rest = this.held + delta;
    this.held = "";
    while (rest !== "") {
      const tag = this.inThink ? "</think>" : "<think>";
      const at = rest.indexOf(tag);
      if (at >= 0) {
        this.out(rest.slice(0, at));
        this.inThink = !this.inThink;
        this.trimStart = true;
        this.thinkingSpace = "";
        rest = rest.slice(at + tag.length);
        continue;
      }
      const keep = tagPrefixAtEnd(rest, tag);
      this.out(rest.slice(0, rest.length - keep));
      this.held = rest.slice(rest.length - keep);
      return;
    }
  }

  flush(): void {
    const held = this.held;
    this.held = "";
    this.out(held);
  }

  private out(text: string): void {
    if (this.trimStart) {
      text = text.trimStart();
      if (text === "") return;
      this.trimStart = false;
    }
    if (text === "") return;
    if (!this.inThink) {
      this.emit("text", text);
      return;
    }
    const withSpace = this.thinkingSpace + text;
    const body = withSpace.trimEnd();
    this.thinkingSpace = withSpace.slice(body.length);
    if (body !== "") this.emit("thinking", body);
  }
}

/** Length of the longest end of `text` that is a proper start of `tag`. */
function tagPrefixAtEnd(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (text.endsWith(tag.slice(0, length))) return length;
  }
  return 0;
}
