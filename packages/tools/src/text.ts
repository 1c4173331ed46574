// Small text helpers shared by the tools: binary sniffing, byte formatting, line cutting.

/** Bytes sniffed to decide whether a file is binary. */
export const SNIFF_BYTES = 8192;

/**
 * A buffer looks binary when it holds a NUL byte or many control characters (git's heuristic,
 * slightly widened). UTF-8 text of any language passes.
 */
export function looksBinary(sample: Uint8Array): boolean {
  if (sample.length === 0) return false;
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    // Tab, LF, CR, FF, ESC and backspace appear in real text files.
    if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 13 && byte !== 12 && byte !== 27 && byte !== 8) {
      control++;
    }
  }
  return control / sample.length > 0.1;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** Cuts a line to `max` characters with a marker saying how much was left out. */
export function cutLine(line: string, max: number): string {
  if (line.length <= max) return line;
  return `${line.slice(0, max)}… [${line.length - max} more characters]`;
}

export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}
