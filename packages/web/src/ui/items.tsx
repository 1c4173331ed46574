// One turn's items as list items: the user's message, reasoning (collapsed), tool cards (live
// status, duration, output collapsed when long, `edit` as a diff), notes, the compaction divider,
// the answer (sanitised Markdown) and the footer.

import { Component } from "preact";
import { useMemo } from "preact/hooks";
import { renderMarkdown } from "../markdown.js";
import type { Item } from "../turns.js";

/** Outputs longer than this many lines start collapsed. */
const SHORT_OUTPUT_LINES = 8;

/** A turn's items; a turn whose items did not change (all of history) is not rendered again. */
export class TurnItems extends Component<{ items: Item[] }> {
  override shouldComponentUpdate(next: { items: Item[] }): boolean {
    return next.items !== this.props.items;
  }

  override render() {
    return <ItemList items={this.props.items} />;
  }
}

function ItemList({ items }: { items: Item[] }) {
  return (
    <ol class="items">
      {items.map((item, index) => (
        <ItemView key={index} item={item} />
      ))}
    </ol>
  );
}

function ItemView({ item }: { item: Item }) {
  switch (item.kind) {
    case "user":
      return (
        <li class="user">
          <span class="who">You</span> {item.text}
        </li>
      );
    case "reasoning":
      return (
        <li class="reasoning">
          <details>
            <summary>Reasoning</summary>
            <p>{item.text}</p>
          </details>
        </li>
      );
    case "tool":
      return <ToolCard item={item} />;
    case "note":
      return (
        <li class="note">
          <span class="label">{item.label}</span> {item.text}
        </li>
      );
    case "compact":
      return (
        <li class="compact">
          <span>
            Context compacted: {item.before} → {item.after} messages
          </span>
        </li>
      );
    case "answer":
      return (
        <li class={item.done ? "answer" : "answer streaming"}>
          <Markdown text={item.text} />
        </li>
      );
    case "draft":
      return (
        <li class="answer streaming draft">
          <Markdown text={item.text} />
        </li>
      );
    case "footer":
      return (
        <li class="footer">
          {item.iterations} iterations · {item.tokens.toLocaleString()} tokens · ${item.cost.toFixed(4)} ·{" "}
          {item.elapsed.toFixed(1)} s{item.stop && item.stop !== "stop" ? ` · ${item.stop}` : ""}
        </li>
      );
    case "error":
      return <li class="error">{item.text}</li>;
  }
}

function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // Sanitised by DOMPurify in renderMarkdown.
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

function ToolCard({ item }: { item: Extract<Item, { kind: "tool" }> }) {
  const output = item.output ?? "";
  const lines = output.split("\n").length;
  const status = item.status === "running" ? "running…" : item.status === "error" ? "failed" : "done";
  return (
    <li class={`tool ${item.status}`} aria-label={`${item.name} ${status}`}>
      <div class="tool-head">
        <span class="tool-name">{item.name}</span>
        <span class="tool-args">{summary(item.args)}</span>
        <span class="tool-status">{status}</span>
        {item.seconds !== undefined ? <span class="tool-time">{item.seconds.toFixed(2)} s</span> : null}
      </div>
      {item.name === "edit" ? <Diff args={item.args} /> : null}
      {item.status !== "running" && output ? (
        <details open={lines <= SHORT_OUTPUT_LINES}>
          <summary>Output ({lines} lines)</summary>
          <pre>{output}</pre>
        </details>
      ) : null}
    </li>
  );
}

/** An edit's replacements as removed and added lines. */
function Diff({ args }: { args: Record<string, unknown> }) {
  const edits = (Array.isArray(args.edits) ? args.edits : [args]) as Record<string, unknown>[];
  const text = (value: unknown) => (typeof value === "string" ? value.split("\n") : []);
  return (
    <pre class="diff">
      {edits.map((edit, index) => (
        <span key={index}>
          {text(edit.oldText ?? edit.old_string ?? edit.old_text).map((line, i) => (
            <span key={`d${i}`} class="del">{`- ${line}\n`}</span>
          ))}
          {text(edit.newText ?? edit.new_string ?? edit.new_text).map((line, i) => (
            <span key={`a${i}`} class="add">{`+ ${line}\n`}</span>
          ))}
        </span>
      ))}
    </pre>
  );
}

function summary(args: Record<string, unknown>): string {
  const text = Object.entries(args)
    .filter(([key]) => key !== "edits" && key !== "content")
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ");
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}
