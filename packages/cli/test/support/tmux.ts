// A real pseudo-terminal for `tern chat`: tmux on a private socket, driven with send-keys and read
// with capture-pane.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** tmux is needed for the terminal tests; without it they are skipped (with a visible reason). */
export const tmuxAvailable: boolean = (() => {
  try {
    execFileSync("tmux", ["-V"], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
})();

export class Tmux {
  private readonly socket = `tern-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private readonly session = "chat";

  constructor(private readonly dir: string) {}

  private tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
  }

  /** Starts `command` (argv) with `env` in a 120x40 terminal; its exit code goes to a file. */
  start(argv: string[], env: NodeJS.ProcessEnv, cwd: string): void {
    const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
    const exports = Object.entries(env)
      .filter(([key, value]) => value !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
      .map(([key, value]) => `export ${key}=${quote(value!)}`)
      .join("\n");
    const script = join(this.dir, "run.sh");
    writeFileSync(
      script,
      `${exports}\nexport TERM=xterm-256color\ncd ${quote(cwd)}\n${argv.map(quote).join(" ")}\necho $? > ${quote(join(this.dir, "exit-code"))}\nsleep 60\n`,
    );
    this.tmux("new-session", "-d", "-s", this.session, "-x", "120", "-y", "40", `sh ${quote(script)}`);
  }

  /** Literal text, then optionally keys such as "Enter" or "M-Enter". */
  type(text: string, ...keys: string[]): void {
    if (text) this.tmux("send-keys", "-t", this.session, "-l", text);
    if (keys.length > 0) this.tmux("send-keys", "-t", this.session, ...keys);
  }

  keys(...keys: string[]): void {
    this.tmux("send-keys", "-t", this.session, ...keys);
  }

  /** The screen plus scrollback, as plain text. */
  capture(): string {
    return this.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", this.session);
  }

  /** The visible screen only, no scrollback: what a clear-screen would have wiped. */
  visible(): string {
    return this.tmux("capture-pane", "-p", "-J", "-t", this.session);
  }

  /** The pane's title, as an OSC 0/2 sequence would have set it. */
  title(): string {
    return this.tmux("display-message", "-p", "-t", this.session, "#{pane_title}").trim();
  }

  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.capture();
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async exitCode(timeoutMs = 30_000): Promise<number> {
    const file = join(this.dir, "exit-code");
    const deadline = Date.now() + timeoutMs;
    while (!existsSync(file) || readFileSync(file, "utf8").trim() === "") {
      if (Date.now() > deadline) throw new Error(`the program did not exit; screen:\n${this.capture()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return Number(readFileSync(file, "utf8").trim());
  }

  kill(): void {
    try {
      this.tmux("kill-server");
    } catch {}
    // The server leaves its socket file behind.
    const dir = process.env.TMUX_TMPDIR || (process.platform === "linux" ? "/tmp" : tmpdir());
    rmSync(join(dir, `tmux-${process.getuid?.() ?? 0}`, this.socket), { force: true });
  }
}
