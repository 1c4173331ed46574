// One turn's items as list items: the user's message, the model's own words, reasoning (collapsed), tool cards (live
// status, duration, output collapsed when long, `edit` as a diff), notes, the compaction divider,
// the answer (sanitised Markdown), the footer, and a plan round as a graph (plan.tsx).

import { Component } from "preact";
import { useMemo } from "preact/hooks";
import { renderMarkdown } from "../markdown.js";
import type { Item } from "../turns.js";
import { PlanGraph } from "./plan.js";
import { ToolCardView } from "./tool-card.js";

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
    case "text":
      return (
        <li class="text">
          <Markdown text={item.text} />
        </li>
      );
    case "tool":
      return <ToolCardView item={item} />;
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
          {item.iterations} {item.plan ? "steps" : "iterations"} · {item.tokens.toLocaleString()} tokens · $
          {item.cost.toFixed(4)} · {item.elapsed.toFixed(1)} s
          {item.stop && item.stop !== "stop" ? ` · ${item.stop}` : ""}
        </li>
      );
    case "error":
      return <li class="error">{item.text}</li>;
    case "plan":
      return <PlanGraph item={item} />;
    case "todo":
      return (
        <li class="todo">
          <span class="label">Todo</span>
          <ul>
            {item.entries.map((entry) => (
              <li key={entry.id} class={`todo-${entry.status}`}>
                {entry.status === "done" ? "☑" : entry.status === "in_progress" ? "▶" : "☐"} {entry.content}
              </li>
            ))}
          </ul>
        </li>
      );
  }
}

function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // Sanitised by DOMPurify in renderMarkdown.
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
