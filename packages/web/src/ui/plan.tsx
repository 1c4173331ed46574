// One round of a plan as a graph: a grid with a column per dependency level (so steps that can
// run together stand together and the DAG's shape shows), lines drawn from each dependency to its
// step, and each step a list item whose accessible name says its id, task and status, with its
// dependencies in text. A step's tool calls sit under it, collapsed. Nothing here relies on colour
// alone: every status is a word and a symbol too.

import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { PlanItem, PlanStep, StepStatus } from "../plan.js";
import { ToolCardView } from "./tool-card.js";

/** Tasks longer than this are cut in the node (the full text is in its name, title and "Full task"). */
const TASK_PREVIEW_CHARS = 90;

const STATUS_MARK: Record<StepStatus, string> = {
  pending: "○",
  running: "◐",
  done: "✓",
  failed: "✗",
  skipped: "⤼",
  aborted: "■",
};

interface Line {
  key: string;
  d: string;
}

export function PlanGraph({ item }: { item: PlanItem }) {
  const depth = Math.max(0, ...item.steps.map((step) => step.level)) + 1;
  const ordered = [...item.steps].sort((a, b) => a.level - b.level);
  const rows = new Map<string, number>();
  const used: number[] = [];
  for (const step of ordered) {
    used[step.level] = (used[step.level] ?? 0) + 1;
    rows.set(step.id, used[step.level]!);
  }
  const graph = useRef<HTMLDivElement>(null);
  const lines = useConnectors(graph, item.steps);
  const label = `Plan, round ${item.round}`;
  return (
    <li class="plan">
      <h2 class="plan-title">
        {label}: {item.steps.length} {item.steps.length === 1 ? "step" : "steps"} in {depth}{" "}
        {depth === 1 ? "level" : "levels"}
      </h2>
      <div class="plan-graph" ref={graph}>
        <svg class="plan-lines" aria-hidden="true">
          {lines.map((line) => (
            <path key={line.key} d={line.d} />
          ))}
        </svg>
        <ol
          class="plan-steps"
          aria-label={`${label} steps`}
          style={{ gridTemplateColumns: `repeat(${depth}, minmax(11rem, 1fr))` }}
        >
          {ordered.map((step) => (
            <StepNode key={step.id} step={step} column={step.level + 1} row={rows.get(step.id)!} />
          ))}
        </ol>
      </div>
    </li>
  );
}

function StepNode({ step, column, row }: { step: PlanStep; column: number; row: number }) {
  const cut = step.task.length > TASK_PREVIEW_CHARS;
  const preview = cut ? `${step.task.slice(0, TASK_PREVIEW_CHARS - 1)}…` : step.task;
  // A skipped step never ran: no time or tokens to show.
  const ran = step.status === "done" || step.status === "failed" || step.status === "aborted";
  return (
    <li
      class={`plan-step ${step.status}`}
      data-step={step.id}
      aria-label={`Step ${step.id}: ${step.task} — ${step.status}`}
      style={{ gridColumn: column, gridRow: row }}
    >
      <div class="step-head">
        <span class="step-id">{step.id}</span>
        <span class="step-status">
          <span aria-hidden="true">{STATUS_MARK[step.status]}</span> {step.status}
        </span>
      </div>
      <p class="step-task" title={step.task}>
        {preview}
      </p>
      {cut ? (
        <details>
          <summary>Full task</summary>
          <p>{step.task}</p>
        </details>
      ) : null}
      <p class="step-deps">
        {step.dependencies.length > 0 ? `after ${step.dependencies.join(", ")}` : "no dependencies"}
      </p>
      {ran && step.durationMs !== undefined ? (
        <p class="step-meta">
          {(step.durationMs / 1000).toFixed(1)} s
          {step.tokens !== undefined ? ` · ${step.tokens.toLocaleString()} tokens` : ""}
        </p>
      ) : null}
      {step.error ? <p class="step-error">{step.error}</p> : null}
      {step.tools.length > 0 ? (
        <details class="step-tools">
          <summary>
            {step.tools.length} tool {step.tools.length === 1 ? "call" : "calls"}
          </summary>
          <ol class="items">
            {step.tools.map((tool) => (
              <ToolCardView key={tool.id} item={tool} />
            ))}
          </ol>
        </details>
      ) : null}
    </li>
  );
}

/**
 * The dependency lines, from the right edge of each dependency to the left edge of its step,
 * measured after layout and again whenever the graph's size changes (a node grew, the window
 * narrowed, a step's tools were opened).
 */
function useConnectors(graph: { current: HTMLDivElement | null }, steps: readonly PlanStep[]): Line[] {
  const [lines, setLines] = useState<Line[]>([]);
  useLayoutEffect(() => {
    const root = graph.current;
    if (!root) return;
    const measure = () => {
      const origin = root.getBoundingClientRect();
      const box = (id: string) =>
        root.querySelector(`[data-step="${CSS.escape(id)}"]`)?.getBoundingClientRect();
      const next: Line[] = [];
      for (const step of steps) {
        const to = box(step.id);
        for (const dep of step.dependencies) {
          const from = box(dep);
          if (!from || !to) continue;
          const x1 = from.right - origin.left;
          const y1 = from.top + Math.min(from.height / 2, 24) - origin.top;
          const x2 = to.left - origin.left;
          const y2 = to.top + Math.min(to.height / 2, 24) - origin.top;
          const bend = (x2 - x1) / 2;
          next.push({
            key: `${dep}>${step.id}`,
            d: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`,
          });
        }
      }
      setLines((old) =>
        old.length === next.length && old.every((line, i) => line.d === next[i]!.d) ? old : next,
      );
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(root);
    return () => observer.disconnect();
  }, [graph, steps]);
  return lines;
}
