// Markdown answers drawn for a terminal with `marked` and `marked-terminal` (headings, lists,
// emphasis, code blocks, tables). Its own module, imported only once stdout is a terminal:
// marked-terminal brings highlight.js, parse5 and an emoji table (2.4 MB the bundle would parse
// at every start), and a pipe gets the text as the model wrote it.

import { Marked, type MarkedExtension } from "marked";
import { markedTerminal } from "marked-terminal";

const plain = (text: string) => text;

/** Renders one Markdown text for a terminal; `color` false keeps the layout and drops the colors. */
export function terminalMarkdown(color: boolean, width: number): (markdown: string) => string {
  const styles = color
    ? {}
    : Object.fromEntries(
        [
          "code",
          "blockquote",
          "html",
          "heading",
          "firstHeading",
          "hr",
          "listitem",
          "table",
          "paragraph",
          "strong",
          "em",
          "codespan",
          "del",
          "link",
          "href",
          "text",
        ].map((key) => [key, plain]),
      );
  const marked = new Marked(
    markedTerminal({
      ...styles,
      width,
      reflowText: false,
      emoji: false,
      tab: 2,
    }) as unknown as MarkedExtension,
  );
  return (markdown) => marked.parse(markdown, { async: false }) as string;
}
