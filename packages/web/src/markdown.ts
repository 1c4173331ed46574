// An answer as HTML: Markdown rendered by marked, then sanitised by DOMPurify, so whatever the
// model writes (raw HTML, event handlers, javascript: links) comes out inert. Links open in a new
// tab without an opener. The page's CSP is the second wall: no inline script runs even if
// something slipped through.

import DOMPurify from "dompurify";
import { marked } from "marked";

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true, breaks: false });
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: ["style", "form", "input", "button"],
    FORBID_ATTR: ["style"],
  });
}
