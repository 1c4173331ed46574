// HTML to Markdown for web_fetch: Readability picks the article (without navigation and
// boilerplate) over linkedom's DOM and Turndown writes it as Markdown. Its own module, imported
// when a fetched page is HTML: these three bring 1.2 MB (a DOM, a CSS parser, entity tables) that
// a run which fetches no page never parses.

import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";
import type { Readable } from "./readable.js";

export function htmlToMarkdown(html: string, url: string): Readable {
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
