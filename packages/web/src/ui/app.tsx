// The page: the session list (name, model, strategy, last activity, running or idle; search, open,
// new with a model from the server's catalogue and a strategy, delete) beside the open session,
// or, with none open, the message box whose first message starts one. On a narrow screen the list
// is a drawer. The open session is in the URL's fragment (#/s/<id>), so a reload comes back to it;
// the token never is. A 401 anywhere asks for the token.

import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import {
  call,
  json,
  type ModelInfo,
  type SessionInfo,
  sessionPath,
  setToken,
  TokenNeeded,
  token,
} from "../api.js";
import { Composer } from "./composer.js";
import { SessionView } from "./session.js";
import { isNewSession, ShortcutHelp, typing, useKeys } from "./shortcuts.js";
import { TokenPrompt } from "./token.js";

/** How often the list is refreshed (it also tells an open session that another tab started a run). */
const LIST_REFRESH_MS = 2000;

/** The run strategies a session can be created with; "" leaves it to the server's default. */
const STRATEGIES = [
  { value: "", label: "Server default" },
  { value: "loop", label: "Loop" },
  { value: "plan", label: "Plan" },
  { value: "auto", label: "Auto" },
];

const currentId = () => /^#\/s\/(.+)$/.exec(location.hash)?.[1];

/** The sessions whose title (its name, or else its first message) holds `query`, any case. */
function matching(sessions: SessionInfo[], query: string): SessionInfo[] {
  const needle = query.trim().toLowerCase();
  return needle ? sessions.filter((session) => session.title.toLowerCase().includes(needle)) : sessions;
}

export function App() {
  const [sessions, setSessions] = useState<SessionInfo[]>([]);
  const [models, setModels] = useState<ModelInfo[]>([]);
  const [model, setModel] = useState("");
  const [name, setName] = useState("");
  const [strategy, setStrategy] = useState("");
  const [open, setOpen] = useState(currentId());
  const [needToken, setNeedToken] = useState<"ask" | "wrong" | undefined>(undefined);
  const [error, setError] = useState("");
  const [confirming, setConfirming] = useState<string | undefined>(undefined);
  const [search, setSearch] = useState("");
  const [drawer, setDrawer] = useState(false);
  const [help, setHelp] = useState(false);
  // The message typed on the empty page, for the session it created.
  const [first, setFirst] = useState<{ id: string; text: string } | undefined>(undefined);

  useKeys((event) => {
    if (event.key === "Escape") {
      setHelp(false);
      setDrawer(false);
    } else if (isNewSession(event)) {
      event.preventDefault();
      setDrawer(false);
      location.hash = "";
    } else if (event.key === "?" && !typing(event)) setHelp(true);
  });

  const fail = useCallback((reason: unknown) => {
    // With a token kept, a 401 means it was refused; without one, the server wants one.
    if (reason instanceof TokenNeeded) setNeedToken(token() ? "wrong" : "ask");
    else setError(reason instanceof Error ? reason.message : String(reason));
  }, []);

  // Refreshes overlap (the timer's and a run's end): an answer older than one shown is dropped.
  const listReads = useRef({ asked: 0, shown: 0 });
  const refresh = useCallback(async () => {
    const read = ++listReads.current.asked;
    try {
      const data = await json<{ sessions: SessionInfo[] }>("GET", "/api/sessions");
      if (read < listReads.current.shown) return;
      listReads.current.shown = read;
      setSessions(data.sessions.sort((a, b) => b.updated.localeCompare(a.updated)));
      setNeedToken(undefined);
    } catch (reason) {
      fail(reason);
    }
  }, [fail]);

  useEffect(() => {
    if (needToken) return;
    void refresh();
    json<{ models: ModelInfo[]; default: string | null }>("GET", "/api/models")
      .then((data) => {
        setModels(data.models);
        setModel(data.default ?? data.models[0]?.id ?? "");
      })
      .catch(fail);
    const timer = setInterval(() => void refresh(), LIST_REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh, fail, needToken]);

  useEffect(() => {
    const onHash = () => {
      setOpen(currentId());
      setDrawer(false);
    };
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);

  const create = async (text?: string) => {
    try {
      const { session } = await json<{ session: SessionInfo }>("POST", "/api/sessions", {
        ...(model ? { model } : {}),
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(strategy ? { strategy } : {}),
      });
      setName("");
      if (text) setFirst({ id: session.id, text });
      location.hash = `#/s/${session.id}`;
      void refresh();
    } catch (reason) {
      fail(reason);
    }
  };

  const remove = async (id: string) => {
    setConfirming(undefined);
    try {
      await call("DELETE", sessionPath(id));
      if (open === id) location.hash = "";
      void refresh();
    } catch (reason) {
      fail(reason);
    }
  };

  if (needToken)
    return (
      <main class="center">
        <TokenPrompt
          wrong={needToken === "wrong"}
          done={(token) => {
            setToken(token);
            setNeedToken(undefined);
          }}
        />
      </main>
    );

  const openInfo = sessions.find((session) => session.id === open);
  const shown = matching(sessions, search);
  return (
    <div class={drawer ? "layout drawer-open" : "layout"}>
      <nav aria-label="Sessions">
        <h2>Sessions</h2>
        <form
          class="new"
          onSubmit={(event) => {
            event.preventDefault();
            void create();
          }}
        >
          <label>
            Model
            <select value={model} onChange={(event) => setModel((event.target as HTMLSelectElement).value)}>
              {models.map((option) => (
                <option key={option.id} value={option.id}>
                  {option.name} ({option.id})
                </option>
              ))}
            </select>
          </label>
          <label>
            Name
            <input value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} />
          </label>
          <label>
            Strategy
            <select
              value={strategy}
              onChange={(event) => setStrategy((event.target as HTMLSelectElement).value)}
            >
              {STRATEGIES.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
          <button type="submit">New session</button>
        </form>
        <input
          type="search"
          class="search"
          aria-label="Search sessions"
          placeholder="Search sessions"
          value={search}
          onInput={(event) => setSearch((event.target as HTMLInputElement).value)}
        />
        {search.trim() && shown.length === 0 ? (
          <p class="empty">No session matches “{search.trim()}”.</p>
        ) : null}
        <ul class="sessions">
          {shown.map((session) => (
            <li key={session.id} class={session.id === open ? "current" : ""}>
              <a href={`#/s/${session.id}`} aria-current={session.id === open ? "page" : undefined}>
                <span class="title">{session.title || session.id.slice(0, 8)}</span>
                <span class="meta">
                  {session.model ?? "not loaded"}
                  {session.strategy ? ` · ${session.strategy}` : ""} ·{" "}
                  {new Date(session.updated).toLocaleString()} ·{" "}
                  <span class={session.running ? "state-running" : "state-idle"}>
                    {session.running ? "running" : "idle"}
                  </span>
                </span>
              </a>
              <button
                type="button"
                class="delete"
                aria-label={
                  confirming === session.id ? `Confirm delete ${session.title}` : `Delete ${session.title}`
                }
                onClick={() =>
                  confirming === session.id ? void remove(session.id) : setConfirming(session.id)
                }
              >
                {confirming === session.id ? "Confirm" : "Delete"}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <main>
        <div class="topbar">
          <button
            type="button"
            class="drawer-toggle"
            aria-expanded={drawer}
            onClick={() => setDrawer(!drawer)}
          >
            Sessions
          </button>
          <button
            type="button"
            class="help-toggle"
            aria-label="Keyboard shortcuts"
            onClick={() => setHelp(true)}
          >
            ?
          </button>
        </div>
        {help ? <ShortcutHelp close={() => setHelp(false)} /> : null}
        {error ? (
          <p class="error" role="alert">
            {error}{" "}
            <button type="button" onClick={() => setError("")}>
              Dismiss
            </button>
          </p>
        ) : null}
        {open ? (
          <SessionView
            key={open}
            id={open}
            runningElsewhere={openInfo?.running ?? false}
            firstMessage={first?.id === open ? first.text : undefined}
            listedTitle={openInfo?.title}
            fail={fail}
            changed={() => void refresh()}
          />
        ) : (
          <section class="session start" aria-label="New session">
            <p class="empty">
              Type a task to start a session (with the model and strategy on the left), or open one. Press{" "}
              <kbd>?</kbd> for shortcuts.
            </p>
            <Composer streaming={false} autoFocus send={(text) => void create(text)} />
          </section>
        )}
      </main>
    </div>
  );
}
