// `tern chat` on a terminal: raw keys, the input line, the agent's events streaming above it,
// permission questions in the input line, Ctrl-C handling and the slash commands.
import { emitKeypressEvents } from "node:readline";
import type { AgentRunResult, RunStrategy } from "@tern/agent";
import type { UserMessage } from "@tern/ai";
import { describeSandbox, latestTodos, type PermissionAnswer, type PermissionRequest } from "@tern/tools";
import type { ExitCode } from "../cli/errors.js";
import { errorText } from "../cli/errors.js";
import type { Io } from "../cli/io.js";
import { hasPrice, modelLabel } from "../config/model.js";
import { policiesLabel } from "../config/policy-settings.js";
import { saveProjectAllow } from "../config/project-rules.js";
import type { AgentSettings } from "../config/settings.js";
import { oneLine } from "../render/format.js";
import { instructionsHeader } from "../render/instructions.js";
import { ProgressRenderer } from "../render/progress.js";
import { skillsHeader } from "../render/skills.js";
import type { Style } from "../render/style.js";
import { terminalMarkdown } from "../render/terminal-markdown.js";
import { todoLines } from "../render/todo-lines.js";
import { describeCall } from "../render/tool-lines.js";
import { mentionsIn, type PreparedPrompt, preparePrompt } from "../runtime/attach.js";
import { explainFailure } from "../runtime/failure.js";
import type { McpApprover } from "../runtime/mcp.js";
import { terminalMcpApprover } from "../runtime/mcp-ask.js";
import { resumePlan } from "../runtime/resume.js";
import { openRuntime, type Runtime } from "../runtime/runtime.js";
import { sessionFailure } from "../runtime/session-ids.js";
import { LineEditor } from "./line-editor.js";
import { completePath, MAX_COMPLETIONS_SHOWN } from "./path-complete.js";
import { ChatScreen } from "./screen.js";
import { runSlash } from "./slash.js";

interface Key {
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
  sequence?: string;
}

const DOUBLE_PRESS_MS = 2000;
const BUSY_HINT = "Enter steers · Tab follows up · Ctrl-C aborts";
/** What terminals that report Shift+Enter send for it (CSI u and xterm's modifyOtherKeys). */
const SHIFT_ENTER = new Set(["\u001b[13;2u", "\u001b[27;2;13~"]);
/** An `@path` word ending at the cursor. */
const MENTION_AT_CURSOR = /(?:^|\s)@(\S*)$/;

export class ChatApp {
  private runtime!: Runtime;
  private renderer: ProgressRenderer;
  private detach: (() => void) | undefined;
  private readonly editor = new LineEditor();
  private readonly screen: ChatScreen;
  private running: Promise<void> | undefined;
  private question:
    | {
        request: PermissionRequest;
        resolve: (answer: PermissionAnswer) => void;
        /** Set while the person types why not (the model reads it as the tool's result). */
        reason?: LineEditor;
      }
    | undefined;
  private lastCtrlC = 0;
  private finished: ((code: ExitCode) => void) | undefined;
  private exiting = false;
  private commandBusy = false;

  constructor(
    private readonly io: Io,
    private readonly settings: AgentSettings,
    private readonly style: Style,
  ) {
    this.screen = new ChatScreen(io.stdout, style);
    this.renderer = this.newRenderer();
  }

  async start(): Promise<ExitCode> {
    // The terminal is not raw yet: project MCP servers can be approved with a plain question.
    this.runtime = await this.open(
      this.settings,
      terminalMcpApprover(this.io.stdin, this.io.stdout, this.style),
    );
    this.attach();
    const { stdin } = this.io;
    emitKeypressEvents(stdin);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("keypress", this.onKey);
    this.io.stdout.on("resize", this.onResize);
    this.banner();
    this.refresh();
    return new Promise<ExitCode>((resolve) => {
      this.finished = resolve;
    });
  }

  // ---------------------------------------------------------------- session and agent

  private open(settings: AgentSettings, approveMcp?: McpApprover): Promise<Runtime> {
    return openRuntime({
      settings,
      env: this.io.env,
      warn: (message) => this.print(this.style.yellow(`warning: ${message}`)),
      ask: (request) => this.ask(request),
      ...(approveMcp ? { approveMcp } : {}),
    });
  }

  private attach(): void {
    this.renderer = this.newRenderer();
    this.detach = this.runtime.agent.subscribe(this.renderer.handle);
  }

  private newRenderer(): ProgressRenderer {
    const markdown = terminalMarkdown(this.style.enabled, this.io.stdout.columns ?? 80);
    return new ProgressRenderer(this.screen, {
      style: this.style,
      liveText: true,
      markdown,
      // The runtime opens after the first renderer, and /model or /new may replace it.
      hasPrice: (provider, model) => hasPrice(this.runtime.registry)(provider, model),
    });
  }

  private banner(withResumeNote = true): void {
    const { style, runtime } = this;
    this.print(
      `${style.bold("tern chat")} ${style.dim(`· ${modelLabel(runtime.model)} · session ${runtime.session.id.slice(0, 8)} · permissions ${runtime.permissions.mode} · ${describeSandbox(runtime.sandbox)} · ${runtime.cwd}`)}`,
    );
    // The loop policies that are on, as `tern run`'s header lists them.
    this.print(style.dim(policiesLabel(runtime.policies)));
    const instructions = instructionsHeader(runtime.instructions, runtime.cwd);
    if (instructions) this.print(style.dim(instructions));
    const skills = skillsHeader(runtime.coding.skills);
    if (skills) this.print(style.dim(skills));
    this.print(
      style.dim(
        "Enter sends · Alt+Enter new line · @path attaches (Tab completes) · while it works: Enter steers, Tab follows up · Ctrl-C aborts · /help",
      ),
    );
    const resumed = withResumeNote ? runtime.resumed : undefined;
    if (resumed) {
      const count = resumed.context.messages.length;
      const plan = resumePlan(runtime.session, resumed.needsContinue);
      this.print(
        style.dim(
          `resumed with ${count} messages${plan.kind === "finished" ? "" : '; its last run did not finish: say "continue" to go on'}`,
        ),
      );
      const todos = latestTodos(resumed.context.messages);
      if (todos) for (const text of todoLines(todos, style)) this.print(text);
    }
  }

  private get busy(): boolean {
    return this.running !== undefined;
  }

  /** Sends `text` (its `@` mentions attached, unless `literal`). */
  private prompt(text: string, strategy?: RunStrategy, literal = false): void {
    this.print(`${this.style.bold(this.style.cyan("›"))} ${text.replace(/\n/g, "\n  ")}`);
    const agent = this.runtime.agent;
    const ready: Promise<PreparedPrompt> = literal
      ? Promise.resolve({ text, images: [], attached: [], warnings: [] })
      : preparePrompt(text, { cwd: this.runtime.cwd, model: agent.state.model, mcp: this.runtime.mcp });
    this.running = ready
      .then((prepared) => {
        for (const warning of prepared.warnings) this.print(this.style.yellow(`warning: ${warning}`));
        if (prepared.attached.length > 0)
          this.print(this.style.dim(`attached ${prepared.attached.join(", ")}`));
        return agent.prompt(prepared.text, { images: prepared.images, ...(strategy ? { strategy } : {}) });
      })
      .then(
        (result) => this.afterRun(result),
        (error: unknown) => this.print(this.style.red(`✗ ${errorText(error)}`)),
      );
    void this.running.finally(() => {
      this.running = undefined;
      this.refresh();
    });
    this.refresh();
  }

  private afterRun(result: AgentRunResult): void {
    const agent = this.runtime.agent;
    const dropped = agent.queuedMessages.steering.length + agent.queuedMessages.followUp.length;
    if (dropped > 0) {
      agent.clearQueues();
      this.print(
        this.style.yellow(
          `${dropped} queued message${dropped === 1 ? " was" : "s were"} not delivered (the run ended)`,
        ),
      );
    }
    if (result.stopReason === "error")
      this.print(this.style.red(`✗ ${explainFailure(result, this.runtime.model)}`));
    if (this.runtime.binding.error)
      this.print(this.style.red(`✗ could not save the session: ${this.runtime.binding.error.message}`));
  }

  private async switchSession(target: string, how: "resume" | "fork" | "new"): Promise<void> {
    let id: string | undefined = target;
    if (how === "fork") {
      const source = this.runtime.session;
      const entryId = target || undefined;
      if (entryId !== undefined && !source.getEntry(entryId)) {
        this.print(
          this.style.yellow(
            `no entry "${entryId}" in this session (tern sessions show ${source.id.slice(0, 8)} lists them)`,
          ),
        );
        return;
      }
      await source.flush();
      const fork = await this.runtime.store.fork(source.id, entryId !== undefined ? { entryId } : {});
      await fork.close();
      id = fork.id;
    }
    if (how === "new") id = undefined;
    const { sessionId: _, ...settings } = this.settings;
    const next = await this.open(
      id === undefined
        ? { ...settings, cwd: this.runtime.cwd }
        : { ...settings, sessionId: id, explicitModel: false, flags: [], explicitCwd: false },
    );
    this.detach?.();
    await this.runtime.close();
    this.runtime = next;
    this.attach();
    const short = next.session.id.slice(0, 8);
    const done = {
      fork: `forked into session ${short}`,
      resume: `switched to session ${short}`,
      new: `new session ${short}`,
    };
    this.print(this.style.dim(done[how]));
    this.banner();
  }

  // ---------------------------------------------------------------- permission questions

  private ask(request: PermissionRequest): Promise<PermissionAnswer> {
    return new Promise((resolve) => {
      const settle = (answer: PermissionAnswer) => {
        request.signal.removeEventListener("abort", onAbort);
        this.question = undefined;
        const allowed = answer === true || (typeof answer === "object" && answer.allow);
        this.screen.status(allowed ? `running ${request.toolName}` : "thinking");
        this.refresh();
        resolve(answer);
      };
      const onAbort = () => settle(false);
      request.signal.addEventListener("abort", onAbort, { once: true });
      this.question = { request, resolve: settle };
      this.screen.status(undefined);
      this.refresh();
    });
  }

  private answer(key: Key, text: string | undefined): void {
    const question = this.question!;
    if (question.reason && !(key.ctrl && key.name === "c")) {
      this.reasonKey(question, key, text);
      return;
    }
    const choice = (text ?? "").toLowerCase();
    const always = question.request.suggestedRules.join(", ");
    if (key.ctrl && key.name === "c") {
      this.print(
        this.style.yellow(
          `⊘ ${describeCall(question.request.toolName, question.request.args)}: no (Ctrl-C aborts the turn)`,
        ),
      );
      question.resolve({ allow: false, reason: "the user pressed Ctrl-C" });
      this.runtime.agent.abort();
      return;
    }
    if (choice === "y") question.resolve(true);
    else if (choice === "a") {
      question.resolve({ allow: true, remember: true });
      if (always) this.print(this.style.dim(`allowed from now on: ${always}`));
    } else if (choice === "s" && always) {
      question.resolve({ allow: true, remember: true });
      saveProjectAllow(this.runtime.cwd, this.runtime.home, question.request.suggestedRules).then(
        (file) => this.print(this.style.dim(`allowed from now on, saved in ${file}: ${always}`)),
        (error) =>
          this.print(
            this.style.red(`✗ could not save the rule: ${errorText(error)} (allowed for this session only)`),
          ),
      );
    } else if (choice === "t") {
      question.reason = new LineEditor();
      this.refresh();
    } else if (choice === "n" || key.name === "escape" || key.name === "return") question.resolve(false);
  }

  /** Typing the reason of a "no": Enter sends it, Esc goes back to the question. */
  private reasonKey(question: NonNullable<ChatApp["question"]>, key: Key, text: string | undefined): void {
    const editor = question.reason!;
    if (key.name === "escape") question.reason = undefined;
    else if (key.name === "return" || key.name === "enter") {
      const reason = editor.buffer.trim();
      if (reason !== "") {
        this.print(
          this.style.yellow(
            `⊘ ${describeCall(question.request.toolName, question.request.args)}: no, ${oneLine(reason, 100)}`,
          ),
        );
        question.resolve({ allow: false, reason });
        return;
      }
    } else if (key.name === "backspace") editor.backspace();
    else if (!key.ctrl && !key.meta && text !== undefined) {
      const printable = [...text].filter((char) => char >= " " && char !== "\u007f").join("");
      if (printable) editor.insert(printable);
    }
    this.refresh();
  }

  // ---------------------------------------------------------------- keys

  private readonly onKey = (text: string | undefined, key: Key = {}): void => {
    if (this.exiting) return;
    if (this.question) {
      this.answer(key, text);
      return;
    }
    if (key.ctrl && key.name === "c") {
      this.interrupt();
      return;
    }
    if (key.ctrl && key.name === "d") {
      if (this.editor.buffer === "") void this.exit(0);
      else this.editor.deleteForward();
      this.refresh();
      return;
    }
    if (
      ((key.name === "return" || key.name === "enter") && (key.meta || key.shift)) ||
      SHIFT_ENTER.has(key.sequence ?? "")
    ) {
      this.editor.insert("\n");
      this.refresh();
      return;
    }
    if (key.name === "return" || key.name === "enter") {
      this.submit(false);
      return;
    }
    if (key.name === "tab" && !key.shift) {
      const mention = MENTION_AT_CURSOR.exec(this.editor.buffer.slice(0, this.editor.cursor));
      if (mention) void this.complete(mention[1]!);
      else if (this.busy) this.submit(true);
      else this.editor.insert("  ");
      this.refresh();
      return;
    }
    this.edit(text, key);
    this.refresh();
  };

  private edit(text: string | undefined, key: Key): void {
    const editor = this.editor;
    if (key.ctrl) {
      const actions: Record<string, () => void> = {
        a: () => editor.home(),
        e: () => editor.end(),
        u: () => editor.killBefore(),
        k: () => editor.killAfter(),
        w: () => editor.deleteWordBefore(),
        b: () => editor.left(),
        f: () => editor.right(),
        l: () => this.io.stdout.write("\u001b[2J\u001b[H"),
      };
      actions[key.name ?? ""]?.();
      return;
    }
    const keys: Record<string, () => void> = {
      backspace: () => (key.meta ? editor.deleteWordBefore() : editor.backspace()),
      delete: () => editor.deleteForward(),
      left: () => editor.left(),
      right: () => editor.right(),
      home: () => editor.home(),
      end: () => editor.end(),
      up: () => editor.historyUp(),
      down: () => editor.historyDown(),
      escape: () => {},
    };
    const action = keys[key.name ?? ""];
    if (action) {
      action();
      return;
    }
    if (key.meta || text === undefined) return;
    // Printable text only (pasted text arrives character by character).
    const printable = [...text].filter((char) => char >= " " && char !== "\u007f").join("");
    if (printable) editor.insert(printable);
  }

  /** Tab on an `@path` word: completes it from the workspace, or lists the choices. */
  private async complete(word: string): Promise<void> {
    const before = this.editor.buffer;
    const { replacement, candidates } = await completePath(word, this.runtime.cwd);
    if (this.editor.buffer !== before) return; // typed on meanwhile
    if (candidates.length > 0) {
      const shown = candidates.slice(0, MAX_COMPLETIONS_SHOWN).join("  ");
      const more =
        candidates.length > MAX_COMPLETIONS_SHOWN
          ? `  … ${candidates.length - MAX_COMPLETIONS_SHOWN} more`
          : "";
      this.print(this.style.dim(`${shown}${more}`));
    }
    if (replacement !== undefined) {
      for (let i = 0; i < [...word].length; i++) this.editor.backspace();
      this.editor.insert(replacement);
    }
    this.refresh();
  }

  private submit(followUp: boolean): void {
    const line = this.editor.take().trim();
    this.refresh();
    if (line === "") return;
    if (line.startsWith("/")) {
      void this.slash(line);
      return;
    }
    if (!this.busy) {
      if (this.commandBusy) {
        this.print(this.style.yellow("wait for the command to finish"));
        return;
      }
      this.prompt(line);
      return;
    }
    void this.queue(line, followUp);
  }

  /** A message sent while the agent works: its `@path` files attached, then steering or a follow-up. */
  private async queue(line: string, followUp: boolean): Promise<void> {
    const agent = this.runtime.agent;
    let message: string | UserMessage = line;
    if (mentionsIn(line).length > 0) {
      try {
        const prepared = await preparePrompt(line, {
          cwd: this.runtime.cwd,
          model: agent.state.model,
          mcp: this.runtime.mcp,
        });
        for (const warning of prepared.warnings) this.print(this.style.yellow(`warning: ${warning}`));
        message =
          prepared.images.length === 0
            ? prepared.text
            : {
                role: "user",
                content: [{ type: "text", text: prepared.text }, ...prepared.images],
                timestamp: Date.now(),
              };
      } catch (error) {
        this.print(this.style.red(`✗ ${errorText(error)}`));
        return;
      }
    }
    if (followUp) {
      agent.followUp(message);
      this.print(this.style.dim(`queued a follow-up (read when the agent would stop): ${oneLine(line, 80)}`));
    } else {
      agent.steer(message);
      this.print(this.style.dim(`queued steering (read after the current tool calls): ${oneLine(line, 80)}`));
    }
  }

  private async slash(line: string): Promise<void> {
    this.commandBusy = true;
    try {
      await runSlash(line, {
        runtime: this.runtime,
        style: this.style,
        env: this.io.env,
        home: this.settings.home,
        configPath: this.settings.config.path,
        busy: this.busy,
        print: (text) => this.print(text),
        switchSession: (id, how) => this.switchSession(id, how),
        prompt: (text, strategy, literal) => this.prompt(text, strategy, literal),
        exit: () => void this.exit(0),
        clearScreen: () => this.io.stdout.write("\u001b[2J\u001b[3J\u001b[H"),
        banner: () => this.banner(false),
        setInput: (text) => {
          this.editor.clear();
          this.editor.insert(text);
        },
      });
    } catch (error) {
      const failure = sessionFailure(error);
      this.print(this.style.red(`✗ ${errorText(failure)}`));
    } finally {
      this.commandBusy = false;
      this.refresh();
    }
  }

  private interrupt(): void {
    const now = Date.now();
    const twice = now - this.lastCtrlC < DOUBLE_PRESS_MS;
    this.lastCtrlC = now;
    if (this.busy) {
      if (twice) {
        void this.exit(130);
        return;
      }
      this.runtime.agent.abort();
      this.print(this.style.yellow("■ aborting the turn (Ctrl-C again to exit)"));
      return;
    }
    if (this.editor.buffer !== "") {
      this.editor.clear();
      this.refresh();
      return;
    }
    if (twice) {
      void this.exit(0);
      return;
    }
    this.print(this.style.dim("(Ctrl-C again to exit)"));
  }

  // ---------------------------------------------------------------- screen

  private print(text: string): void {
    this.screen.line(text);
  }

  private refresh(): void {
    if (this.exiting) return;
    if (this.question?.reason) {
      const editor = this.question.reason;
      this.screen.setHint("the model reads this as the tool's result · Enter sends · Esc goes back");
      this.screen.setInput(`${this.style.yellow("✎")} Why not? `, editor.buffer, editor.cursor);
      return;
    }
    if (this.question) {
      const { request } = this.question;
      const always =
        request.suggestedRules.length > 0
          ? ` / [a]lways allow ${request.suggestedRules.join(", ")} / [s]ave that for the project`
          : "";
      this.screen.setHint("");
      this.screen.setInput(
        `${this.style.yellow("?")} Allow ${this.style.bold(describeCall(request.toolName, request.args))}? [y]es / [n]o / [t]ell it why not${always} `,
        "",
        0,
      );
      return;
    }
    this.screen.setHint(this.busy ? BUSY_HINT : "");
    const prompt = this.busy ? this.style.dim("↪ ") : this.style.bold(this.style.cyan("› "));
    this.screen.setInput(prompt, this.editor.buffer, this.editor.cursor);
  }

  private readonly onResize = (): void => this.screen.render();

  private async exit(code: ExitCode): Promise<void> {
    if (this.exiting) return;
    this.exiting = true;
    const { stdin } = this.io;
    stdin.off("keypress", this.onKey);
    this.io.stdout.off("resize", this.onResize);
    if (this.running) {
      this.runtime.agent.abort();
      await Promise.race([this.running, new Promise((resolve) => setTimeout(resolve, 3000))]);
    }
    this.screen.status(undefined);
    this.screen.close();
    await this.runtime.close();
    if (stdin.isTTY) stdin.setRawMode(false);
    stdin.pause();
    const id = this.runtime.session.id.slice(0, 8);
    this.io.stdout.write(
      this.style.dim(`session ${id} saved · continue it with: tern chat --session ${id}\n`),
    );
    this.finished?.(code);
  }
}
