// `bash` inside the bubblewrap sandbox: what it may touch (the workspace), what it may only read
// (the rest of the file system), what it cannot see (secrets, keys in the environment), the
// network (off unless allowed), and process lifetime (nothing outlives the call or an abort).
// Skips, saying why, only where bubblewrap cannot run; CI installs it.

import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, createTools, describeSandbox, sandboxWarning } from "../src/index.js";
import { SAFE_VARIABLES } from "../src/sandbox/environment.js";
import { callTool, tempDir, workspace } from "./support.js";
import { hostProcesses, loopbackHttp, SANDBOX_SKIP_REASON, waitFor } from "./support-sandbox.js";

const SLEEPER = ["sleep", "77"];

describe.skipIf(SANDBOX_SKIP_REASON !== undefined)(
  `bash in the sandbox${SANDBOX_SKIP_REASON ? ` (${SANDBOX_SKIP_REASON})` : ""}`,
  () => {
    it("writes the workspace; reads /etc/passwd; cannot write /etc or the host's /tmp", async () => {
      const ws = await workspace({ "a.txt": "a\n" });
      const probe = `tern-sandbox-probe-${process.pid}`;
      const result = await ws.call("bash", {
        command: `echo made > made.txt; head -c 5 /etc/passwd; echo; touch /etc/${probe} || echo etc-refused; echo t > /tmp/${probe}`,
      });
      expect(result.text).toContain("root:");
      expect(result.text).toContain("etc-refused");
      expect(result.details.sandbox).toBe("sandbox");
      expect(await readFile(path.join(ws.root, "made.txt"), "utf8")).toBe("made\n");
      expect(existsSync(`/etc/${probe}`)).toBe(false);
      // The sandbox's /tmp is private and gone with the call.
      expect(existsSync(`/tmp/${probe}`)).toBe(false);
    });

    it("cannot write a directory outside the workspace that it can read", async () => {
      const ws = await workspace();
      const result = await ws.call("bash", {
        command: `cat ../outside/secret.txt; echo pwned > ../outside/secret.txt || echo refused; rm -f ../outside/secret.txt`,
      });
      // Hidden by the private /tmp here (the workspace lives in the host's /tmp), or read-only:
      // sandbox-attacks.test.ts uses a directory outside /tmp to show the read-only case.
      expect(result.text).not.toContain("pwned");
      expect(await readFile(path.join(ws.outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
    });

    it("shows readOnly paths under the private /tmp again, read-only (a program's own files)", async () => {
      const ws = await workspace();
      const installed = await mkdtemp("/tmp/tern-sandbox-installed-");
      try {
        await writeFile(path.join(installed, "server.js"), "the program\n");
        const sandbox = createSandbox();
        const run = async (readOnly?: string[]) => {
          const launch = await sandbox.launch({
            shell: "/bin/sh",
            command: `cat ${installed}/server.js || echo hidden; echo x > ${installed}/server.js || echo refused`,
            root: ws.root,
            cwd: ws.root,
            ...(readOnly ? { readOnly } : {}),
          });
          if (!launch.ok) throw new Error(launch.error);
          return execFileSync(launch.program, launch.args, {
            env: launch.env,
            encoding: "utf8",
            stdio: "pipe",
          });
        };
        expect(await run()).toContain("hidden");
        const shown = await run([installed]);
        expect(shown).toContain("the program");
        expect(shown).toContain("refused");
        expect(await readFile(path.join(installed, "server.js"), "utf8")).toBe("the program\n");
      } finally {
        await rm(installed, { recursive: true, force: true });
      }
    });

    it("cannot regain root's power to remount the file system", async () => {
      const ws = await workspace();
      const probe = `tern-sandbox-remount-${process.pid}`;
      await ws.call("bash", { command: `mount -o remount,rw / ; touch /etc/${probe}` });
      expect(existsSync(`/etc/${probe}`)).toBe(false);
    });

    describe("secrets", () => {
      const saved = { ...process.env };
      let base: string;
      let home: string;
      let ternHome: string;
      // Per test: support.ts removes temporary directories after each test.
      beforeEach(async () => {
        // A fake home with a key in ~/.ssh, and a TERN_HOME holding a config, both outside the
        // workspace (the default ~/.tern is hidden the same way).
        // Outside /tmp, which the sandbox replaces with its own: hidden must mean hidden by us.
        base = await mkdtemp(path.join("/var/tmp", "tern-sandbox-secrets-"));
        home = path.join(base, "home");
        ternHome = path.join(base, "tern-home");
        await mkdir(home);
        await mkdir(ternHome);
        await writeFile(path.join(home, "visible.txt"), "plain file\n");
        await mkdir(path.join(home, ".ssh"));
        await writeFile(path.join(home, ".ssh", "id_ed25519"), "PRIVATE KEY\n");
        await writeFile(path.join(home, ".netrc"), "machine x password hunter2\n");
        await writeFile(path.join(ternHome, "config.json"), '{"secret":"in tern home"}\n');
        Object.assign(process.env, {
          HOME: home,
          TERN_HOME: ternHome,
          OPENAI_API_KEY: "sk-sandbox-test-0123456789abcdef",
          MY_SERVICE_TOKEN: "token-0123456789",
          LC_AUTH_TOKEN: "lc-token-0123456789",
        });
      });
      afterEach(async () => {
        await rm(base, { recursive: true, force: true });
        for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
        Object.assign(process.env, saved);
      });

      it("hides ~/.ssh, ~/.netrc and $TERN_HOME", async () => {
        const ws = await workspace();
        const result = await ws.call("bash", {
          command: `ls -A ${home}/.ssh; cat ${home}/.netrc; cat ${ternHome}/config.json; cat ${home}/visible.txt`,
        });
        // The home itself is visible: only the secrets in it are hidden.
        expect(result.text).toContain("plain file");
        expect(result.text).not.toContain("id_ed25519");
        expect(result.text).not.toContain("hunter2");
        expect(result.text).not.toContain("in tern home");
      });

      it("a workspace that is the home directory is writable and still hides ~/.ssh", async () => {
        const tools = createTools({ root: home, only: ["bash"] });
        const result = await callTool(tools, "bash", {
          command: "ls -A .ssh; cat .netrc; echo made > made-in-home; echo end",
        });
        expect(result.text).not.toContain("id_ed25519");
        expect(result.text).not.toContain("hunter2");
        expect(await readFile(path.join(home, "made-in-home"), "utf8")).toBe("made\n");
        // Hidden inside the sandbox only: the real files are untouched.
        expect(await readFile(path.join(home, ".ssh", "id_ed25519"), "utf8")).toBe("PRIVATE KEY\n");
      });

      it("a workspace inside the hidden $TERN_HOME is still bound and writable", async () => {
        const root = path.join(ternHome, "work");
        await mkdir(root);
        const tools = createTools({ root, only: ["bash"] });
        const result = await callTool(tools, "bash", {
          command: `echo made > made.txt; cat ${ternHome}/config.json; echo end`,
        });
        expect(result.text).not.toContain("in tern home");
        expect(await readFile(path.join(root, "made.txt"), "utf8")).toBe("made\n");
      });

      it("shows `env` no key or token, only allowed variables", async () => {
        const ws = await workspace();
        const result = await ws.call("bash", { command: "env" });
        expect(result.isError).toBe(false);
        expect(result.text).not.toContain("sk-sandbox-test");
        expect(result.text).not.toContain("token-0123456789");
        const names = result.text
          .split("\n")
          .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line))
          .map((line) => line.slice(0, line.indexOf("=")));
        const set = ["PAGER", "GIT_PAGER", "GIT_TERMINAL_PROMPT", "TMPDIR", "PWD", "SHLVL", "_"];
        for (const name of names) {
          if (set.includes(name) || name.startsWith("LC_")) continue;
          expect(SAFE_VARIABLES).toContain(name);
        }
        expect(names).toContain("PATH");
      });

      it("scrubs the environment with the sandbox off too", async () => {
        const ws = await workspace({}, { sandbox: { profile: "off" } });
        const result = await ws.call("bash", { command: "env" });
        expect(result.text).not.toContain("sk-sandbox-test");
        expect(result.text).not.toContain("token-0123456789");
      });
    });

    describe("network", () => {
      const command = (port: number) =>
        `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;

      it("fails without allowNet: a loopback server on the host cannot be reached", async () => {
        const server = await loopbackHttp("hello from the host");
        try {
          const ws = await workspace();
          const result = await ws.call("bash", { command: command(server.port) });
          expect(result.isError).toBe(true);
          expect(result.text).not.toContain("hello from the host");
        } finally {
          await server.close();
        }
      });

      it("works with allowNet", async () => {
        const server = await loopbackHttp("hello from the host");
        try {
          const ws = await workspace({}, { sandbox: { allowNet: true } });
          const result = await ws.call("bash", { command: command(server.port) });
          expect(result.text).toContain("hello from the host");
          expect(result.isError).toBe(false);
        } finally {
          await server.close();
        }
      });
    });

    describe("process lifetime", () => {
      it("`setsid sleep 77 &` does not outlive the call", async () => {
        const before = new Set(hostProcesses(SLEEPER));
        const ws = await workspace();
        const result = await ws.call("bash", { command: "setsid sleep 77 & sleep 0.2; echo started" });
        expect(result.text).toContain("started");
        await waitFor(() => (hostProcesses(SLEEPER).some((pid) => !before.has(pid)) ? undefined : true));
      });

      it("abort ends the call with an aborted result and kills every process in it", async () => {
        const before = new Set(hostProcesses(SLEEPER));
        const ws = await workspace();
        const controller = new AbortController();
        const running = ws.call(
          "bash",
          { command: "setsid sleep 77 & nohup sleep 77 & touch started; sleep 77" },
          controller.signal,
        );
        await waitFor(() => (existsSync(path.join(ws.root, "started")) ? true : undefined));
        const fresh = () => hostProcesses(SLEEPER).filter((pid) => !before.has(pid));
        await waitFor(() => (fresh().length >= 3 ? true : undefined));
        controller.abort();
        const result = await running;
        expect(result.isError).toBe(true);
        expect(result.details.aborted).toBe(true);
        expect(result.text).toContain("The command was aborted");
        await waitFor(() => (fresh().length === 0 ? true : undefined));
      });

      it("a timeout kills every process in the call", async () => {
        const before = new Set(hostProcesses(SLEEPER));
        const ws = await workspace();
        const result = await ws.call("bash", { command: "setsid sleep 77 & sleep 77", timeout: 0.5 });
        expect(result.details.timedOut).toBe(true);
        await waitFor(() => (hostProcesses(SLEEPER).some((pid) => !before.has(pid)) ? undefined : true));
      });
    });
  },
);

describe("sandbox profiles", () => {
  it("without a usable bubblewrap, bash refuses to run and says how to install it or opt out", async () => {
    const ws = await workspace({}, { sandbox: { bwrap: "/nonexistent/bwrap" } });
    const result = await ws.call("bash", { command: "touch ran" });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^Commands cannot run: /);
    expect(result.text).toContain("apt-get install bubblewrap");
    expect(result.text).toContain("--sandbox off");
    expect(existsSync(path.join(ws.root, "ran"))).toBe(false);
  });

  it("a bwrap that cannot start the sandbox counts as unavailable, with its failure as the reason", async () => {
    const ws = await workspace({}, { sandbox: { bwrap: "/bin/false" } });
    const result = await ws.call("bash", { command: "touch ran" });
    expect(result.text).toMatch(/^Commands cannot run: \/bin\/false failed \(exit 1\)/);
    expect(existsSync(path.join(ws.root, "ran"))).toBe(false);
  });

  it("describes each case for a run header, with a warning only when bash cannot run", async () => {
    const missing = await createSandbox({ bwrap: "/nonexistent/bwrap" }).status();
    expect(describeSandbox(missing)).toBe("sandbox unavailable");
    expect(sandboxWarning(missing)).toMatch(/^bash is disabled: .*apt-get install bubblewrap.*--sandbox off/);
    const off = await createSandbox({ profile: "off" }).status();
    expect([describeSandbox(off), sandboxWarning(off)]).toEqual(["sandbox off", undefined]);
    if (SANDBOX_SKIP_REASON === undefined) {
      const on = await createSandbox({ allowNet: true }).status();
      expect([describeSandbox(on), sandboxWarning(on)]).toEqual(["sandbox on, network allowed", undefined]);
    }
  });

  it("profile off runs unconfined, and says so in the details", async () => {
    const ws = await workspace({}, { sandbox: { profile: "off" } });
    const result = await ws.call("bash", { command: "touch ../outside/made-off" });
    expect(result.isError).toBe(false);
    expect(result.details.sandbox).toBe("off");
    expect(existsSync(path.join(ws.outside, "made-off"))).toBe(true);
  });

  it("rejects an unknown profile when the tools are made", async () => {
    const root = await tempDir();
    // @ts-expect-error: a bad value from JavaScript or a config file
    expect(() => createTools({ root, sandbox: { profile: "loose" } })).toThrow(
      /unknown sandbox profile "loose"; known: sandbox, off/,
    );
  });

  it("an already aborted call starts nothing", async () => {
    const ws = await workspace();
    const controller = new AbortController();
    controller.abort();
    const result = await callTool(ws.tools, "bash", { command: "touch ran" }, controller.signal);
    expect(result.details.aborted).toBe(true);
    expect(existsSync(path.join(ws.root, "ran"))).toBe(false);
  });
});
