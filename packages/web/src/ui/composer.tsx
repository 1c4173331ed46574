// The message box: Enter sends, Shift+Enter starts a new line; while a run goes on it steers the
// run and Stop (or Esc, shortcuts.tsx) aborts it. The same box opens an empty page, where the
// first message starts a session.

import { useEffect, useRef, useState } from "preact/hooks";

export function Composer({
  streaming,
  send,
  stop,
  autoFocus = false,
}: {
  streaming: boolean;
  /** Put the cursor here when it appears (the empty page: there is nothing else to do). */
  autoFocus?: boolean;
  send: (text: string) => void;
  stop?: () => void;
}) {
  const [draft, setDraft] = useState("");
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (autoFocus) box.current?.focus();
  }, [autoFocus]);
  const submit = () => {
    const text = draft.trim();
    if (!text) return;
    setDraft("");
    send(text);
  };
  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <textarea
        ref={box}
        aria-label="Message"
        rows={2}
        value={draft}
        placeholder={streaming ? "Steer the run…" : "Type a task…"}
        onInput={(event) => setDraft((event.target as HTMLTextAreaElement).value)}
        onKeyDown={(event) => {
          if (event.key === "Enter" && !event.shiftKey) {
            event.preventDefault();
            submit();
          }
        }}
      />
      <button type="submit">Send</button>
      {streaming && stop ? (
        <button type="button" class="stop" onClick={stop}>
          Stop
        </button>
      ) : null}
      <span class="state">{streaming ? "running" : "idle"}</span>
    </form>
  );
}
