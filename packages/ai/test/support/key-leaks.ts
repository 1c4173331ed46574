// The test oracle for redaction, independent of the redactor: where a text still holds a key,
// whole or in an encoding (JSON-escaped, percent-encoded, base64 or base64url at any alignment).
// Any stretch that decodes back to the key's middle counts, so cut edges do not hide a leak.

/** Descriptions of each leak of `key` in `text`; empty when the text is clean. */
export function keyLeaks(text: string, key: string): string[] {
  const found = [key, JSON.stringify(key).slice(1, -1), encodeURIComponent(key)]
    .filter((form) => text.includes(form))
    .map((form) => `literal ${form}`);
  if (percentDecoded(text).includes(key)) found.push("percent-encoded");
  const middle = key.slice(4, -4);
  for (const run of text.match(/[A-Za-z0-9+/_-]{12,}/g) ?? []) {
    for (const encoding of ["base64", "base64url"] as const) {
      for (let skip = 0; skip < 4; skip++) {
        if (Buffer.from(run.slice(skip), encoding).toString("latin1").includes(middle))
          found.push(`${encoding} ${run}`);
      }
    }
  }
  return found;
}

function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (escapes) => {
    try {
      return decodeURIComponent(escapes);
    } catch {
      return escapes;
    }
  });
}
