// The one redactor for everything tern writes (terminal, --json, SSE and JSON-RPC frames, session
// files, cassettes, spans, logs). Given secret values, it replaces each value and the spellings an
// output can turn it into: JSON-escaped, percent-encoded (in a URL an error echoes), and base64 /
// base64url (a tool that encodes it, a Basic header). A base64 string embedded in a longer one
// depends on where the secret starts modulo 3, so each of the three alignments is a spelling, cut
// to the characters that only the secret determines. `stream()` does the same over chunks,
// holding back a tail that could be the start of a spelling until the next chunk decides it.

/** What stands in for a secret by default. */
export const REDACTED = "[REDACTED]";

/**
 * Values shorter than this are no secrets to search for: they would hit ordinary words, and their
 * base64 spellings would be a few characters long.
 */
export const MIN_SECRET_LENGTH = 8;

export interface RedactorOptions {
  /** What replaces a secret. Default `[REDACTED]`. */
  marker?: string;
  /** Shorter values are ignored. Default MIN_SECRET_LENGTH. */
  minLength?: number;
}

/** Redacts a stream of text: what `push` returns is safe to write; `end` returns the rest. */
export interface RedactingStream {
  push(chunk: string): string;
  end(): string;
}

export class Redactor {
  readonly marker: string;
  private readonly minLength: number;
  private readonly secrets = new Set<string>();
  /** Every spelling of every secret, longest first. */
  private spellings: string[] = [];

  constructor(secrets: Iterable<string | undefined> = [], options: RedactorOptions = {}) {
    this.marker = options.marker ?? REDACTED;
    this.minLength = options.minLength ?? MIN_SECRET_LENGTH;
    this.add(secrets);
  }

  /** Registers more secrets (a key resolved after the output started); short and empty values are skipped. */
  add(secrets: Iterable<string | undefined>): void {
    let changed = false;
    for (const secret of secrets) {
      if (secret === undefined || secret.length < this.minLength || this.secrets.has(secret)) continue;
      this.secrets.add(secret);
      changed = true;
    }
    if (!changed) return;
    const all = new Set<string>();
    for (const secret of this.secrets) for (const spelling of spellingsOf(secret)) all.add(spelling);
    this.spellings = [...all].sort((a, b) => b.length - a.length);
  }

  /** The longest spelling's length: a stream holds back fewer characters than this. */
  get longest(): number {
    return this.spellings[0]?.length ?? 0;
  }

  text(value: string): string {
    if (this.spellings.length === 0) return value;
    return this.replace(value, this.matches(value), value.length);
  }

  /** A JSON value (as JSON.stringify sees it) with every string redacted, object keys included. */
  json<T>(value: T): T {
    if (this.spellings.length === 0) return value;
    return this.walk(value) as T;
  }

  stream(): RedactingStream {
    let held = "";
    return {
      push: (chunk) => {
        const text = held + chunk;
        const ranges = this.matches(text);
        const decided = ranges.at(-1)?.[1] ?? 0;
        const cut = text.length - this.openTail(text, decided);
        held = text.slice(cut);
        return this.replace(text, ranges, cut);
      },
      end: () => {
        const rest = this.text(held);
        held = "";
        return rest;
      },
    };
  }

  private walk(value: unknown): unknown {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.walk(item));
    if (value !== null && typeof value === "object") {
      // What JSON.stringify would write (a Date's string), not the object's own fields.
      const json = (value as { toJSON?: () => unknown }).toJSON;
      if (typeof json === "function") return this.walk(json.call(value));
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [this.text(key), this.walk(item)]),
      );
    }
    return value;
  }

  /** Where spellings occur, as merged [start, end) ranges in order: overlapping secrets become one. */
  private matches(text: string): [number, number][] {
    const found: [number, number][] = [];
    for (const spelling of this.spellings) {
      for (let at = text.indexOf(spelling); at >= 0; at = text.indexOf(spelling, at + 1))
        found.push([at, at + spelling.length]);
    }
    if (found.length < 2) return found;
    found.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [found[0]!];
    for (const range of found.slice(1)) {
      const last = merged.at(-1)!;
      if (range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
      else merged.push(range);
    }
    return merged;
  }

  /** `text` up to `cut` with each range replaced; ranges that reach past `cut` are written whole. */
  private replace(text: string, ranges: [number, number][], cut: number): string {
    let out = "";
    let at = 0;
    for (const [start, end] of ranges) {
      if (start >= cut) break;
      out += text.slice(at, start) + this.marker;
      at = end;
    }
    return at >= cut ? out : out + text.slice(at, cut);
  }

  /** Length of the longest tail of `text` (from `from` on) that is a proper prefix of a spelling. */
  private openTail(text: string, from: number): number {
    let longest = 0;
    for (const spelling of this.spellings) {
      const start = Math.max(from, text.length - spelling.length + 1);
      const first = spelling.charCodeAt(0);
      for (let at = start; at < text.length - longest; at++) {
        if (text.charCodeAt(at) === first && spelling.startsWith(text.slice(at))) {
          longest = text.length - at;
          break;
        }
      }
    }
    return longest;
  }
}

/** The spellings one secret can take in output. */
export function spellingsOf(secret: string): string[] {
  const out = new Set<string>([secret, jsonEscaped(secret)]);
  const percent = encodeURIComponent(secret);
  out.add(percent);
  out.add(percent.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
  const bytes = Buffer.from(secret, "utf8");
  for (let offset = 0; offset < 3; offset++) {
    const base64 = alignedBase64(bytes, offset);
    // A short secret's base64 (a 3-character password's is 3 or 4 characters) would hit any text.
    if (base64.length < MIN_SECRET_LENGTH) continue;
    out.add(base64);
    out.add(base64.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...out];
}

function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/**
 * The base64 characters of `bytes` when `offset` unknown bytes precede them: the characters whose
 * six bits all come from `bytes`, so neither the bytes before nor after change them.
 */
function alignedBase64(bytes: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(3)]).toString("base64");
  const first = Math.ceil((offset * 8) / 6);
  const end = Math.floor(((offset + bytes.length) * 8) / 6);
  return encoded.slice(first, end);
}
