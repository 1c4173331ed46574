// What a cassette keeps of a request and a response. Secrets never reach the file: credential
// headers are dropped, credential-looking query parameters are blanked, and any secret value the
// caller names (the API key in use) is replaced wherever it appears, in any spelling the shared
// redactor knows (JSON-escaped, percent-encoded, base64). Values that change from run
// to run (the workspace path, today's date) become `{{name}}` placeholders, so a recording still
// matches when it is replayed elsewhere or later.

import { type RedactingStream, Redactor } from "../redactor.js";

export const REDACTED = "[redacted]";

/** Request headers that carry credentials: never recorded. */
const SECRET_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "x-goog-api-key",
  "cookie",
  "set-cookie",
]);
/** Any other header or query parameter whose name looks like a credential. */
const SECRET_NAME = /key|token|secret|auth|cookie|password|signature|credential/i;
/** Response headers worth replaying: what the client reads (type, retry hints) and what a bug report needs (ids). */
const KEPT_RESPONSE_HEADER =
  /^(content-type|retry-after|retry-after-ms|.*request-id|x-ratelimit-.*|anthropic-ratelimit-.*)$/i;

export interface ScrubOptions {
  /** Values never written (API keys, 8 characters or more); each occurrence becomes `[redacted]`. */
  secrets?: readonly string[];
  /** name -> value: each occurrence of the value becomes `{{name}}`. */
  placeholders?: Readonly<Record<string, string>>;
}

export class Scrubber {
  private readonly secrets: Redactor;
  private readonly placeholders: [string, string][];

  constructor(options: ScrubOptions = {}) {
    this.secrets = new Redactor(options.secrets ?? [], { marker: REDACTED });
    this.placeholders = [];
    for (const [name, value] of Object.entries(options.placeholders ?? {})) this.addPlaceholder(name, value);
  }

  /** Another value written as `{{name}}` from now on (a name may have several: each session's id). */
  addPlaceholder(name: string, value: string): void {
    if (value === "" || this.placeholders.some(([n, v]) => n === name && v === value)) return;
    this.placeholders.push([name, value]);
    // Longest value first, so a path inside another path is not replaced halfway.
    this.placeholders.sort((a, b) => b[1].length - a[1].length);
  }

  /** Secrets blanked; used on everything written. */
  text(value: string): string {
    return this.secrets.text(value);
  }

  /** `text` over a body that arrives in pieces, so a secret cut in two is still blanked. */
  textStream(): RedactingStream {
    return this.secrets.stream();
  }

  /** Secrets blanked and placeholders put in; used on what replay compares. */
  normalized(value: string): string {
    let out = this.text(value);
    for (const [name, text] of this.placeholders) out = out.split(text).join(`{{${name}}}`);
    return out;
  }

  /** `normalized` applied to every string in a JSON value. */
  json(value: unknown): unknown {
    if (typeof value === "string") return this.normalized(value);
    if (Array.isArray(value)) return value.map((item) => this.json(item));
    if (value !== null && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.json(item)]));
    return value;
  }

  url(raw: string): string {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return this.normalized(raw);
    }
    for (const name of [...url.searchParams.keys()])
      if (SECRET_NAME.test(name)) url.searchParams.set(name, REDACTED);
    url.username = "";
    url.password = "";
    return this.normalized(url.toString());
  }

  requestHeaders(headers: Iterable<[string, string]>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of headers) {
      const lower = name.toLowerCase();
      if (SECRET_HEADERS.has(lower) || SECRET_NAME.test(lower)) continue;
      out[lower] = this.text(value);
    }
    return out;
  }

  responseHeaders(headers: Iterable<[string, string]>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of headers) {
      if (KEPT_RESPONSE_HEADER.test(name)) out[name.toLowerCase()] = this.text(value);
    }
    return out;
  }
}
