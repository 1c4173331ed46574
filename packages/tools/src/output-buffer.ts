// Keeps the start and the end of a command's output within a byte budget: the start shows what
// the command was doing, the end shows how it finished (errors, summaries). The middle is dropped.

export class HeadTailBuffer {
  private readonly head: Buffer[] = [];
  private headSize = 0;
  private tail: Buffer[] = [];
  private tailSize = 0;
  /** Every byte pushed. */
  total = 0;

  constructor(
    private readonly headBytes: number,
    private readonly tailBytes: number,
  ) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headSize < this.headBytes) {
      const take = Math.min(this.headBytes - this.headSize, chunk.length);
      this.head.push(chunk.subarray(0, take));
      this.headSize += take;
      chunk = chunk.subarray(take);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailSize += chunk.length;
    if (this.tailSize > this.tailBytes * 2) this.trimTail(); // amortised trimming
  }

  get truncated(): boolean {
    return this.total > this.headBytes + this.tailBytes;
  }

  /** The kept text; an omission marker sits where the middle was dropped. */
  text(): string {
    this.trimTail();
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    if (!this.truncated) return Buffer.concat([head, tail]).toString("utf8");
    const omitted = this.total - head.length - tail.length;
    const headText = head.subarray(0, completeUtf8End(head)).toString("utf8");
    const tailText = tail.subarray(utf8Start(tail)).toString("utf8");
    return `${headText}\n\n[… ${omitted} bytes of output omitted …]\n\n${tailText}`;
  }

  /** The last `max` bytes, for progress updates. */
  recent(max: number): string {
    const source = this.tail.length > 0 ? Buffer.concat(this.tail) : Buffer.concat(this.head);
    const slice = source.subarray(Math.max(0, source.length - max));
    return slice.subarray(utf8Start(slice)).toString("utf8");
  }

  private trimTail(): void {
    if (this.tailSize <= this.tailBytes) return;
    const joined = Buffer.concat(this.tail);
    const kept = joined.subarray(joined.length - this.tailBytes);
    this.tail = [kept];
    this.tailSize = kept.length;
  }
}

/** Skips UTF-8 continuation bytes at the start of a cut buffer. */
function utf8Start(buffer: Buffer): number {
  let i = 0;
  while (i < buffer.length && i < 4 && (buffer[i]! & 0xc0) === 0x80) i++;
  return i;
}

/** Length without an incomplete UTF-8 sequence at the end. */
function completeUtf8End(buffer: Buffer): number {
  for (let back = 1; back <= Math.min(4, buffer.length); back++) {
    const byte = buffer[buffer.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? buffer.length - back : buffer.length;
  }
  return buffer.length;
}
