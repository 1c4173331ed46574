// One session: its history (stored messages), the newest run replayed from GET /events, and new
// runs streamed from POST /messages. While a run goes on, Send steers it (POST /interrupt); once
// the page shows its end, or if it ended while the message was on its way, the message starts the
// next run. Stop aborts a run; permission questions open a dialog. A stream that drops is picked
// up again from its last frame (sse.ts), and each frame is folded in once (turns.ts). The changes
// panel (changes.tsx) is read when the session opens and again when a run ends.

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, call, json, sessionPath } from "../api.js";
import { type Frame, follow, type SessionStream } from "../sse.js";
import { applyFrame, historyTurns, messageText, newRun, questionOf, type Turn } from "../turns.js";
import { ChangesPanel, useChanges } from "./changes.js";
import { Composer } from "./composer.js";
import { TurnItems } from "./items.js";
import { PermissionDialog } from "./permission.js";
import { useKeys } from "./shortcuts.js";

/** How close to the bottom counts as "at the bottom" (then new output scrolls into view). */
const FOLLOW_SLACK_PX = 80;

interface SessionData {
  session: { id: string; title: string; running: boolean; model?: string };
  messages: { role: string; content?: unknown }[];
  permissions: Record<string, unknown>[];
  run_from: number;
}

export function SessionView({
  id,
  runningElsewhere,
  firstMessage,
  listedTitle,
  fail,
  changed,
}: {
  id: string;
  /** Sent as soon as the session is loaded (typed on the empty page that created it). */
  firstMessage?: string | undefined;
  /** The title the session list has (it names a session by its first message once there is one). */
  listedTitle?: string | undefined;
  /** The session list says it runs (maybe started from another tab). */
  runningElsewhere: boolean;
  fail: (error: unknown) => void;
  changed: () => void;
}) {
  const [title, setTitle] = useState("");
  const [history, setHistory] = useState<Turn[]>([]);
  const [runs, setRuns] = useState<Turn[]>([]);
  const [streaming, setStreaming] = useState(false);
  const [announce, setAnnounce] = useState("");
  const stream = useRef<SessionStream | undefined>(undefined);
  const scroller = useRef<HTMLDivElement>(null);
  // Follow the run at the bottom unless the reader scrolled up.
  const following = useRef(true);
  const runCount = useRef(0);
  // The parent's callbacks change on each of its renders; the streams must not restart for that.
  const parent = useRef({ fail, changed });
  parent.current = { fail, changed };
  const [changes, reloadChanges] = useChanges(id, fail);

  const onFrame = useCallback((frame: Frame) => {
    setRuns((all) => {
      const last = all.at(-1);
      if (!last) return all;
      const next = applyFrame(last, frame);
      if (next === last) return all;
      if (frame.event === "answer" && frame.data.status === "done") {
        const answer = next.items.findLast((item) => item.kind === "answer");
        if (answer?.kind === "answer") setAnnounce(answer.text);
      }
      return [...all.slice(0, -1), next];
    });
  }, []);

  const attach = useCallback(
    (first?: (signal: AbortSignal) => Promise<Response>) => {
      stream.current?.stop();
      setStreaming(true);
      const mine = follow(id, first, undefined, {
        frame: onFrame,
        end: (error) => {
          if (stream.current !== mine) return;
          stream.current = undefined;
          setStreaming(false);
          // Nothing came (204): drop the empty run placeholder.
          setRuns((all) => all.filter((turn) => turn.items.length > 0 || turn.done));
          if (error) parent.current.fail(error);
          parent.current.changed();
          void reloadChanges();
        },
      });
      stream.current = mine;
    },
    [id, onFrame, reloadChanges],
  );

  const startRun = useCallback(
    (text: string) => {
      setRuns((all) => [
        ...all.filter((turn) => turn.items.length > 0),
        newRun(`r${runCount.current++}`, text),
      ]);
      attach((signal) => call("POST", sessionPath(id, "/messages"), { content: text }, signal));
    },
    [id, attach],
  );

  /** Reads the session and shows it; `ifRunning`: only if a run goes on that this page does not follow. */
  const load = useCallback(
    async (ifRunning = false) => {
      try {
        const data = await json<SessionData>("GET", sessionPath(id));
        if (ifRunning && (!data.session.running || stream.current)) return;
        void reloadChanges();
        setTitle(data.session.title || data.session.id.slice(0, 8));
        const messages = data.messages as Parameters<typeof historyTurns>[0];
        setHistory(historyTurns(messages.slice(0, data.run_from)));
        const first = messages[data.run_from];
        // The replayed run's frames do not repeat the message that started it; the messages do.
        const run = newRun(
          `r${runCount.current++}`,
          first?.role === "user" ? messageText(first.content) : undefined,
        );
        run.questions = data.permissions.map(questionOf);
        setRuns([run]);
        if (first === undefined && firstMessage) startRun(firstMessage);
        else attach();
      } catch (error) {
        parent.current.fail(error);
      }
    },
    [id, attach, firstMessage, reloadChanges],
  );

  useEffect(() => {
    void load();
    return () => stream.current?.stop();
  }, [load]);

  // Another tab (or an app) started a run here: follow it. The list can be older than this page's
  // own stream (read while the page's run went on, arriving after its end), so the session says
  // whether a run goes on; reloading for a finished run would drop the runs shown since the page opened.
  useEffect(() => {
    if (runningElsewhere && !stream.current) void load(true);
  }, [runningElsewhere, load]);

  useLayoutEffect(() => {
    const box = scroller.current;
    if (box && following.current) box.scrollTop = box.scrollHeight;
  }, [history, runs]);

  /** Steers the run going on; false when it ended while the message was on its way (409). */
  const steer = async (text: string): Promise<boolean> => {
    try {
      await call("POST", sessionPath(id, "/interrupt"), { content: text });
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) return false;
      throw error;
    }
  };

  const send = async (text: string) => {
    try {
      const following = stream.current;
      // A run whose end the page shows is over for the reader: the message starts the next run
      // once the stream closes, as does one that reached the server after the run ended.
      if (following && !runs.at(-1)?.done && (await steer(text))) return;
      await following?.ended;
      startRun(text);
    } catch (error) {
      fail(error);
    }
  };

  const stop = () => call("POST", sessionPath(id, "/abort"), {}).catch(fail);
  // Esc stops the run, unless a dialog (a permission question, the shortcut list) has it.
  useKeys((event) => {
    if (event.key === "Escape" && streaming && !document.querySelector('[role="dialog"]')) void stop();
  });
  const answer = (requestId: string, decision: string, message?: string) =>
    call("POST", sessionPath(id, `/permissions/${encodeURIComponent(requestId)}`), {
      decision,
      ...(message ? { message } : {}),
    })
      .then(() =>
        setRuns((all) =>
          all.map((turn) => ({ ...turn, questions: turn.questions.filter((q) => q.id !== requestId) })),
        ),
      )
      .catch(fail);

  const question = runs.at(-1)?.questions[0];
  return (
    <section class="session" aria-labelledby="session-title">
      <h1 id="session-title">{listedTitle || title}</h1>
      <ChangesPanel loaded={changes} />
      <div
        class="turns"
        ref={scroller}
        onScroll={(event) => {
          const box = event.currentTarget;
          following.current = box.scrollHeight - box.scrollTop - box.clientHeight < FOLLOW_SLACK_PX;
        }}
      >
        {[...history, ...runs].map((turn) => (
          <article key={turn.key} class="turn">
            <TurnItems items={turn.items} />
          </article>
        ))}
      </div>
      <div class="sr-only" role="status" aria-live="polite">
        {announce}
      </div>
      {question ? (
        <PermissionDialog
          key={question.id}
          question={question}
          answer={(decision, message) => void answer(question.id, decision, message)}
        />
      ) : null}
      <Composer streaming={streaming} send={(text) => void send(text)} stop={() => void stop()} />
    </section>
  );
}
