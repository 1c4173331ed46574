// Turns a fetched body into text for the model: HTML through Readability (the article, without
// navigation and boilerplate) and Turndown (Markdown), over linkedom's DOM; text and JSON as they
// are; anything else (images, archives, PDFs) refused.

import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";

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

export function toReadable(body: Buffer, contentType: string, url: string): Readable {
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
    return htmlToMarkdown(text, url);
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

function htmlToMarkdown(html: string, url: string): Readable {
  const turndown = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
  });
  turndown.remove(["script", "style", "noscript", "iframe"]);
  let title: string | undefined;
  let articleHtml: string | undefined;
  try {
    const { document } = parseHTML(html);
    title = document.title || undefined;
    const article = new Readability(
      document as unknown as ConstructorParameters<typeof Readability>[0],
    ).parse();
    if (article?.content) {
      articleHtml = article.content;
      title = article.title || title;
    }
  } catch {
    // Readability gave up on this page: convert the whole page below.
  }
  try {
    const source = articleHtml ?? parseHTML(html).document.body?.innerHTML ?? html;
    return { ok: true, title, text: turndown.turndown(source).trim(), format: "markdown" };
  } catch (error) {
    return {
      ok: false,
      error: `could not convert the HTML of ${url}: ${(error as Error)?.message ?? error}`,
    };
  }
}
