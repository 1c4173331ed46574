// A permission question as a dialog: Allow once, Always allow (when the server offers rules),
// Deny with an optional note to the model.

import { useEffect, useRef, useState } from "preact/hooks";
import type { Question } from "../turns.js";

export function PermissionDialog({
  question,
  answer,
}: {
  question: Question;
  answer: (decision: string, message?: string) => void;
}) {
  const [note, setNote] = useState("");
  const first = useRef<HTMLButtonElement>(null);
  // Keyboard users land on the question, not somewhere behind it.
  useEffect(() => first.current?.focus(), []);
  const always = question.options.find((option) => option.id === "allow_always");
  const titleId = `q-${question.id}`;
  return (
    <div class="dialog" role="dialog" aria-modal="true" aria-labelledby={titleId}>
      <h2 id={titleId}>Allow {question.tool}?</h2>
      <p>{question.description}</p>
      <pre class="args">{JSON.stringify(question.args, null, 2)}</pre>
      <label>
        Note to the model
        <input value={note} onInput={(event) => setNote((event.target as HTMLInputElement).value)} />
      </label>
      <div class="buttons">
        <button type="button" ref={first} onClick={() => answer("allow_once")}>
          Allow once
        </button>
        {always ? (
          <button type="button" title={always.label} onClick={() => answer("allow_always")}>
            Always allow
          </button>
        ) : null}
        <button type="button" onClick={() => answer("deny", note)}>
          Deny
        </button>
      </div>
    </div>
  );
}
