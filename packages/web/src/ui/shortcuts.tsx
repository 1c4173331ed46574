// The page's keyboard shortcuts and the `?` overlay that lists them. The table only describes
// the keys; each is handled where it acts (Enter in composer.tsx, Esc, Alt+N and ? in app.tsx, Esc
// stopping a run in session.tsx), so a new key goes in both places. Alt+N, not Ctrl+N or Ctrl+T:
// the browser keeps those for its own windows and tabs.

import { useEffect, useRef } from "preact/hooks";

const SHORTCUTS: [keys: string, what: string][] = [
  ["Enter", "Send the message (steers a run that goes on)"],
  ["Shift+Enter", "New line in the message"],
  ["Esc", "Stop the run; close this list or the sessions drawer"],
  ["Alt+N", "New session: an empty page with the message box"],
  ["?", "Show these shortcuts"],
];

/** Whether a key press is typing (in a field), which a shortcut must not steal. */
export const typing = (event: KeyboardEvent) =>
  event.target instanceof HTMLElement && /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName);

export const isNewSession = (event: KeyboardEvent) => event.altKey && event.code === "KeyN";

/** Calls the newest `on` for each key press on the page while mounted. */
export function useKeys(on: (event: KeyboardEvent) => void): void {
  const latest = useRef(on);
  latest.current = on;
  useEffect(() => {
    const listener = (event: KeyboardEvent) => latest.current(event);
    addEventListener("keydown", listener);
    return () => removeEventListener("keydown", listener);
  }, []);
}

export function ShortcutHelp({ close }: { close: () => void }) {
  return (
    <div class="dialog help" role="dialog" aria-modal="true" aria-label="Keyboard shortcuts">
      <h2>Keyboard shortcuts</h2>
      <dl>
        {SHORTCUTS.map(([keys, what]) => (
          <div key={keys}>
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <div class="buttons">
        <button type="button" onClick={close}>
          Close
        </button>
      </div>
    </div>
  );
}
