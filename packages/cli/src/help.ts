// Help texts. Kept free of runtime imports: `tern --help` must not load the runtime.
import type { OptionValues } from "./cli/args.js";
import type { Io } from "./cli/io.js";

const AGENT_OPTIONS = `Model:
  -p, --provider NAME      openai, anthropic, ollama, llamacpp, lmstudio, vllm, deepseek, groq, xai,
                           mistral, openrouter, or any name with --base-url   [TERN_PROVIDER]
  -m, --model ID           model id, or provider/id (see tern models)          [TERN_MODEL]
      --base-url URL       OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1  [TERN_BASE_URL]
      --api-key KEY        default: OPENAI_API_KEY, ANTHROPIC_API_KEY, <PROVIDER>_API_KEY
      --thinking LEVEL     off, minimal, low, medium, high
      --system TEXT        extra instructions appended to the system prompt
      --no-instructions    do not load AGENTS.md, CLAUDE.md, .github/copilot-instructions.md
Loop:
      --tools SET          coding (default: read, write, edit, bash, glob, grep, ...) or none
      --tool-mode MODE     native, json or auto (default auto: native when the model supports it)
      --answer-mode MODE   direct (default) or synthesize (a final streamed answer from the trace)
      --max-turns N        stop after N model turns (default 50)
      --autopilot          keep going until the model calls task_complete
      --policy P           turn a loop policy on/off or tune it (repeatable): completion-check=off,
                           reflection.after=10; policies: completion-check, reflection,
                           cycle-detection, tool-selection, autopilot, synthesis (see README)
      --strategy S         loop (default: one ReAct loop), plan (a DAG of steps run in parallel,
                           analysed and replanned) or auto (a router picks per task)
Workspace and permissions:
  -C, --cwd DIR            workspace root the tools are confined to (default: current directory)
  -s, --session ID         continue a saved session (see tern sessions ls); its provider, model,
                           base URL, tools, tool mode, strategy and answer mode are remembered
                           (a flag given now wins)
  -c, --continue           run, chat: continue the newest session of this directory
      --mode MODE          ask (default), accept-edits, read-only, bypass; in ask and accept-edits
                           read-only bash commands (ls, cat, git status, ...) run without asking
      --allow-tool RULE    allow without asking, e.g. 'bash(npm test:*)', 'edit(src/**)' (repeatable)
      --deny-tool RULE     always deny, e.g. 'bash(rm -rf:*)', 'read(.env*)' (repeatable)
      --sandbox PROFILE    sandbox (default: bash under bubblewrap, only the workspace writable,
                           secrets hidden, no network) or off (bash unconfined)
      --allow-net          let sandboxed commands use all of the network
      --allow-host H[:P]   let sandboxed commands reach host H (port P), through tern's proxy;
                           '*.npmjs.org' for names under it; internal addresses only when named
                           (repeatable)
      --deny-host H[:P]    never let them reach H, even if allowed (repeatable)
Cassettes (record once, replay offline):
      --record FILE        write every model exchange to FILE (JSONL, keys removed)
      --replay FILE        answer model calls from FILE, with no network
      --replay-timing T    none (default: at once) or real (the recorded pace)
      --replay-miss M      fail (default: an unrecorded request is an error) or record
                           (send it to the provider and append it to FILE)
MCP servers ($TERN_HOME/mcp.json, the workspace's .mcp.json; see tern mcp --help):
      --mcp-config FILE    more servers from FILE ({"mcpServers": {...}}; repeatable)
      --no-mcp             start no MCP server
      --mcp-sandbox        run local MCP servers under the bash sandbox (workspace writable, no
                           network unless --allow-net); default: with your privileges, unconfined
Sessions and diagnostics:
      --store URL          keep sessions in PostgreSQL (postgres://user@host:port/db; also TERN_STORE
                           or "store" in config.json) instead of the files under TERN_HOME
      --debug              stack traces and provider details on errors`;

/** The agent options without the ones that pick a saved session: served hosts take sessions from their clients. */
const SERVED_AGENT_OPTIONS = AGENT_OPTIONS.replace(/^ {2}-s, --session[\s\S]*?^ {2}-c, --continue.*\n/m, "");

export const HELP: Record<string, string> = {
  main: `tern — an agent that reads, edits and runs code in your workspace, on any model

Usage:
  tern run [PROMPT]            one task, answer on stdout, progress on stderr (prompt or stdin)
  tern chat                    interactive session
  tern sessions ls|show|resume|fork|rewind|export
  tern models                  models tern knows (built-in and from your config)
  tern usage                   tokens and cost of the recorded sessions (--since, --by, --json)
  tern hooks [approve]         command hooks from config.json and .tern/config.json; approve the project's
  tern skills ls               Agent Skills (.tern/skills, .agents/skills, .claude/skills, $TERN_HOME/skills)
  tern demo                    the offline demo: a scripted model fixes a bug in an example project
  tern serve                   HTTP + SSE (--port N) and JSON-RPC (--stdio, --rpc-port N) for apps and SDKs
  tern mcp ls|approve|serve    MCP servers: their state and tools, approving a project's, tern as one
  tern acp                     an Agent Client Protocol agent on stdin/stdout, for editors (Zed, ...)
  tern worker                  runs a cluster's queued runs (--store postgres://…; docs/scaling.md)
  tern store status|migrate    the PostgreSQL session store's schema (--store URL)

Options: tern <command> --help.   Version: tern --version
Environment: OPENAI_API_KEY, ANTHROPIC_API_KEY, TERN_PROVIDER, TERN_MODEL, TERN_BASE_URL,
TERN_HOME (default ~/.tern: sessions, config.json), TERN_STORE (a postgres:// session store), NO_COLOR;
OPENAI_BASE_URL, ANTHROPIC_BASE_URL (a gateway for models without a base URL of their own).
Every variable tern reads: the table in packages/cli/README.md ("Environment variables").`,

  run: `Usage: tern run [options] [PROMPT]

Runs one task. The prompt comes from the argument or, when there is none, from stdin.
The answer goes to stdout; turns, tool calls, compactions, tokens and cost go to stderr.
  --json                   every event as one JSON line on stdout instead (nothing on stderr but errors)
  --image FILE             attach a PNG, JPEG, GIF or WebP image (repeatable; models with vision only)
@path in the prompt attaches that file (text inlined with its path, up to 100 kB; an image as an
image); a path that is not a readable file stays text, with a warning. @SERVER:URI attaches that
MCP server's resource the same way (resources/read; binary contents described, not inlined).
Exit codes: 0 done, 1 the run failed, 2 bad usage, 130 interrupted (Ctrl-C; the session is saved).

${AGENT_OPTIONS}`,

  chat: `Usage: tern chat [options]

Interactive. When idle, Enter sends a prompt; Alt+Enter (or Shift+Enter, where the terminal
reports it) starts a new line. While the agent works, Enter sends a steering message (read after
the current tool calls) and Tab a follow-up (read when it would stop). @path attaches a file (Tab
completes the path). Ctrl-C aborts the turn; twice exits. Ctrl-D on an empty line exits.
Commands: /model [provider/]ID, /compact [hint], /plan TASK, /sessions, /resume ID, /fork [ENTRY],
/clear, /new, /rewind [N], /tools, /mcp [retry NAME], /context, /mode MODE, /help, /exit; custom commands from .tern/commands/*.md.
MCP servers' prompts are /mcp__SERVER__PROMPT [key=value|positional …]; @SERVER:URI attaches a resource.

${AGENT_OPTIONS}`,

  sessions: `Usage:
  tern sessions ls [--all] [--json]        sessions of this directory (--all: every directory)
  tern sessions show ID                    the conversation, with entry ids for fork
  tern sessions resume ID                  continue an interrupted run (or chat on a terminal)
  tern sessions fork ID [ENTRY]            a new session with the path up to ENTRY (default: the end)
  tern sessions rewind ID [--to N] [--code|--conversation|--both] [--force]
                                           undo turns N.. (default: the last): files tern changed
                                           (write, edit, bash in the workspace) and/or the conversation;
                                           refuses files changed outside tern since, unless --force
  tern sessions export ID --format jsonl|md [--output FILE]
  tern sessions export ID --cassette [--output FILE]   the cassette it was recorded with

An ID may be shortened to any unique prefix. resume takes the model and loop options of tern run.
Each takes --store URL (or TERN_STORE) to use a PostgreSQL session store.`,

  store: `Usage: tern store status|migrate [--store URL] [--json]

The PostgreSQL session store's schema. status prints its version and pending migrations (exit 1
while any are pending); migrate applies them (every node also does on start, safely at once).
URL: --store postgres://user@host:port/db, else TERN_STORE, else "store" in config.json.
Credentials come only from the URL or the PG* variables and are never printed.`,

  usage: `Usage: tern usage [--since WHEN] [--by model|day|session|purpose] [--json] [-C DIR]

Adds up the tokens (in, out, cached) and cost of every model call in the saved sessions of every
directory (-C DIR: one directory's), grouped by model (default), day (UTC), session or purpose.
WHEN is a day (2026-11-30), a moment (2026-11-30T09:00Z) or an age (30m, 12h, 7d, 2w).
A model without a known price (not in tern models, no "prices" in config.json) costs "unknown",
not $0; --json gives it as null.`,

  models: `Usage: tern models [--provider NAME] [--json]

Lists the built-in catalog and the models of $TERN_HOME/config.json. Any model id works on a
local server (ollama, llamacpp, lmstudio, vllm) or with --base-url.`,

  hooks: `Usage: tern hooks [approve] [--cwd DIR]

Lists the command hooks of $TERN_HOME/config.json and of the project's .tern/config.json (at the
git root, or the directory), and whether the project's are approved. A project's hooks run
commands, so tern run and chat run them only once approved: \`tern hooks approve\` approves the
current ones for this project (editing them needs a new approval), with the project's allow
rules and its skills' allowed-tools. See packages/cli/README.md.`,

  skills: `Usage: tern skills [ls] [--cwd DIR] [--json]

Lists the Agent Skills a run here loads: <dir>/<name>/SKILL.md in the project's .tern/skills,
.agents/skills and .claude/skills (at the git root, or the directory), then $TERN_HOME/skills; the
first wins a duplicate name. Each with its description, file, and status: a project skill's
allowed-tools take effect only once approved (tern hooks approve); a user skill's are trusted like
your own rules. Skipped skills are warnings on stderr. See packages/cli/README.md.`,

  serve: `Usage: tern serve [options]

Serves the agent of tern run (same flags, same config.json) to apps and SDKs:
  --port N                 HTTP + SSE on 127.0.0.1:N (the default, on 7878, when no listener is named)
  --rpc-port N             JSON-RPC (the Copilot CLI's protocol) on TCP port N
  --stdio                  JSON-RPC on stdin/stdout (the listening lines go to stderr)
  --host ADDR              bind address (default 127.0.0.1); not loopback needs --token
  --token T                bearer token for /api and JSON-RPC connect     [TERN_SERVER_TOKEN]
  --allow-origin ORIGIN    a web origin (e.g. http://localhost:3000) whose pages may call the
                           HTTP API (repeatable; default none: cross-origin requests are refused)
  --allow-root DIR         another directory sessions may work in (repeatable); a client's cwd
                           outside --cwd and these is refused (403)
  --permission-timeout S   deny a permission question nobody answered after S seconds (default 300)
  --max-connections N      open connections at most, per port (default 256)
  --max-runs N             runs at once across sessions (default 4); more get 503 + Retry-After
  --request-timeout S      HTTP: a request's headers and body must arrive within S seconds, else
                           408 and the connection closes (default 30)
  --headers-timeout S      HTTP: its request line and headers within S seconds (default 10)
  --rpc-idle-timeout S     JSON-RPC port: close a connection that holds no session after S
                           seconds with no bytes either way (default 300)
  --max-body BYTES         HTTP: a larger request body is 413 (default 1000000)
  --max-streams N          HTTP: SSE streams open at once across sessions; one more is 503
                           (default 128)
  --max-session-streams N  HTTP: SSE streams open at once on one session; one more is 429 (default 8)
  --max-message BYTES      JSON-RPC: a larger message gets a -32600 error, skipped unread
                           (default 8388608, 8 MiB)
  --max-batch N            JSON-RPC: a batch of more items gets one -32600 error (default 1000)
  --home DIR               where sessions and config.json live                 [TERN_HOME]
  --store postgres://…     a cluster node: the same API, page and JSON-RPC; runs are enqueued
                           as jobs, events come from the database (tern worker,
                           docs/scaling.md)                                     [TERN_STORE]
  --no-worker              with --store: only serve; leave the runs to the workers
Permission questions (--mode ask) go to the client: an SSE "permission" frame answered with
POST /api/sessions/ID/permissions/REQUEST_ID, or the Copilot SDK's onPermissionRequest.
See packages/server/README.md for the HTTP API.

${SERVED_AGENT_OPTIONS}`,

  mcp: `Usage:
  tern mcp ls [--json]                 the MCP servers of this workspace: state, transport, tools
  tern mcp approve NAME... | --all     let the project's .mcp.json servers start (remembered)
  tern mcp login NAME                  OAuth login to a remote server (prints the URL to open)
  tern mcp logout NAME                 forget that server's OAuth tokens
  tern mcp serve [options]             tern as an MCP server on stdin/stdout (tool "run_task")
Options: -C, --cwd DIR (the workspace), --mcp-config FILE (repeatable), --mcp-sandbox, --allow-net.

Servers come from $TERN_HOME/mcp.json, the workspace's .mcp.json and --mcp-config files, in the
{"mcpServers": {...}} shape of Claude Code and the Copilot CLI. A project's servers start only
once approved: tern chat and tern run on a terminal ask; elsewhere (a pipe, tern serve) they are
skipped with a warning until tern mcp approve. MCP servers run with your privileges, outside the
bash sandbox, unless --mcp-sandbox. Their tools are mcp__SERVER__TOOL: allow or deny them like any tool
(--allow-tool 'mcp__github__*', --deny-tool mcp__fs__write_file); tools the server marks
read-only run in read-only mode and without asking.
OAuth tokens live in $TERN_HOME/mcp-auth (files 0600), are refreshed as they expire and never
shown in output or session files; when a login is revoked, tern says to run tern mcp login NAME.
tern mcp serve takes tern run's options (model, --mode, --allow-tool, --sandbox, ...): the most a
caller's task may do. Its tool's arguments: prompt, cwd (inside --cwd or an --allow-root DIR).
A request over --max-message BYTES (default 8388608, 8 MiB) gets a JSON-RPC error; the next is served.
Environment: MCP_TIMEOUT (milliseconds) how long a run (and tern mcp ls) waits for servers to start
before going on without the slow ones; TERN_HOME (mcp.json, the approvals of project servers).`,
  acp: `Usage: tern acp [options]

tern as an Agent Client Protocol (ACP) agent on stdin/stdout: an editor (Zed, JetBrains IDEs, ...)
starts it and drives sessions over JSON-RPC; stdout carries only protocol frames, logs go to stderr.
A session works in the cwd the editor names, which must lie in the directory tern acp started in
(or -C DIR) or an --allow-root DIR. Permission questions are asked in the editor; when it offers
them, files are read and written through the editor and commands run in its terminal.
      --allow-root DIR     another directory sessions may work in (repeatable)

${SERVED_AGENT_OPTIONS}`,

  worker: `Usage: tern worker --store postgres://… [options]

Takes runs off the database and runs them with the agent of tern serve (same flags, same
config.json): each with a lease renewed by heartbeats; a run whose worker died is taken over by
another and resumed from the session log. Sessions live in the PostgreSQL session store on the
same database.
  --store postgres://…     the cluster's database (credentials from the URL or PG*) [TERN_STORE]
  --concurrency N          runs at once in this process (default 4)
  --lease S                a silent worker loses its runs after S seconds (default 15)
See docs/scaling.md.`,

  demo: `Usage: tern demo [--fast] [--keep] [--web [--port N]]

Copies a small example project to a temporary directory and runs a real agent session there,
offline: a scripted model (the faux provider) reads the files, runs the failing test, is denied
a dangerous command, fixes the bug and reruns the test. Nothing leaves your machine.
  --fast    no typing delay      --keep    keep the temporary project
  --web     run it in the web page instead: prints the address to open (loopback, --port N)`,
};

export function helpFor(command: string): string {
  return HELP[command] ?? HELP.main!;
}

/** Prints `text` and says so when the command was given --help. */
export function wantsHelp(values: OptionValues, io: Io, text: string): boolean {
  if (values.help !== true) return false;
  io.stdout.write(`${text}\n`);
  return true;
}
