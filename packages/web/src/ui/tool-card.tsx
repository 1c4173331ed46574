// A tool call as a card (a list item): name, arguments, live status (running…, done, failed),
// duration, output collapsed when long, and `edit` calls as a diff. Used in a turn and under a
// plan step.

import type { ToolCard } from "../tool-cards.js";

/** Outputs longer than this many lines start collapsed. */
const SHORT_OUTPUT_LINES = 8;

export function ToolCardView({ item }: { item: ToolCard }) {
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
