// The session's "Changes (N)" panel: the files its tools changed (GET …/changes, from the
// checkpoints), each with its status and its diff, + and - lines coloured, collapsible per file.
// The session view reloads it when the session opens and when a run ends. Paths and diffs come
// from the model and the file system, so they are only ever text nodes, never HTML.

import { useCallback, useRef, useState } from "preact/hooks";
import { json, sessionPath, TokenNeeded } from "../api.js";
import { type FileChange, fileChanges } from "../changes.js";

/** A file's diff longer than this many lines starts collapsed. */
const SHORT_DIFF_LINES = 40;

type Loaded = { changes: FileChange[] } | { error: string };

/**
 * The panel's contents (undefined until the first answer) and a reload, stable for the session;
 * when reloads overlap, the newest one's answer is kept.
 */
export function useChanges(id: string, fail: (error: unknown) => void) {
  const [loaded, setLoaded] = useState<Loaded | undefined>(undefined);
  const latest = useRef(0);
  const failRef = useRef(fail);
  failRef.current = fail;
  const reload = useCallback(async () => {
    const mine = ++latest.current;
    let next: Loaded;
    try {
      next = { changes: fileChanges(await json<unknown>("GET", sessionPath(id, "/changes"))) };
    } catch (error) {
      if (error instanceof TokenNeeded) return failRef.current(error);
      next = { error: error instanceof Error ? error.message : String(error) };
    }
    if (mine === latest.current) setLoaded(next);
  }, [id]);
  return [loaded, reload] as const;
}

export function ChangesPanel({ loaded }: { loaded: Loaded | undefined }) {
  const count = loaded && "changes" in loaded ? ` (${loaded.changes.length})` : "";
  return (
    <details class="changes">
      <summary>Changes{count}</summary>
      <div class="changes-body">
        {loaded === undefined ? (
          <p class="changes-empty">Reading the changes…</p>
        ) : "error" in loaded ? (
          <p class="error">The changes could not be read: {loaded.error}</p>
        ) : loaded.changes.length === 0 ? (
          <p class="changes-empty">No changes yet</p>
        ) : (
          <ul class="change-files">
            {loaded.changes.map((change) => (
              <ChangedFile key={change.path} change={change} />
            ))}
          </ul>
        )}
      </div>
    </details>
  );
}

function ChangedFile({ change }: { change: FileChange }) {
  return (
    <li class="change-file">
      <details open={change.lines.length <= SHORT_DIFF_LINES}>
        <summary>
          <span class="change-path">{change.path}</span>{" "}
          <span class={`change-status ${change.status}`}>{change.status}</span>
        </summary>
        {change.note !== undefined ? (
          <p class="change-note">{change.note}</p>
        ) : (
          <pre class="diff">
            {change.lines.map((line, index) => (
              <span key={index} class={line.kind}>{`${line.text}\n`}</span>
            ))}
          </pre>
        )}
      </details>
    </li>
  );
}
