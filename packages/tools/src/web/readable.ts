// Turns a fetched body into text for the model: HTML as Markdown (html-markdown.ts, loaded only
// for an HTML page); text and JSON as they are; anything else (images, archives, PDFs) refused.

export type Readable =
  | { ok: true; title?: string; text: string; format: "markdown" | "text" }
  | { ok: false; error: string };

const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);
const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/x-javascript",
  "application/ecmascript",
  "application/x-ndjson",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
]);

/** The media type, lower-case, without parameters ("" when absent). */
export function mediaType(contentType: string): string {
  return contentType.split(";")[0]!.trim().toLowerCase();
}

export async function toReadable(body: Buffer, contentType: string, url: string): Promise<Readable> {
  const type = mediaType(contentType);
  const isText =
    type.startsWith("text/") || TEXT_TYPES.has(type) || type.endsWith("+json") || type.endsWith("+xml");
  if (type !== "" && !isText && !HTML_TYPES.has(type))
    return { ok: false, error: `${url} is ${type}, not text or HTML; web_fetch reads only text.` };
  // No content type: a NUL byte in the first few KB means binary.
  if (type === "" && body.subarray(0, 8192).includes(0))
    return {
      ok: false,
      error: `${url} looks binary (no content type, NUL bytes); web_fetch reads only text.`,
    };
  const text = decode(body, contentType);
  if (HTML_TYPES.has(type) || (type === "" && /^\s*<(!doctype html|html)/i.test(text)))
    return (await import("./html-markdown.js")).htmlToMarkdown(text, url);
  return { ok: true, text, format: "text" };
}

function decode(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}
