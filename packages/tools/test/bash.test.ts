import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { workspace } from "./support.js";
import { waitFor } from "./support-sandbox.js";

/** Pids of live processes in a process group (ps works on Linux and macOS). */
function groupMembers(pgid: number): number[] {
  const out = execFileSync("ps", ["-e", "-o", "pid=,pgid=,stat="], { encoding: "utf8" });
  return out
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([pid, group, state]) => pid && Number(group) === pgid && !state?.startsWith("Z"))
    .map(([pid]) => Number(pid));
}

/** The process-group tests read host pids ($$), so they run unsandboxed; sandbox.test.ts covers the sandbox. */
const OFF = { sandbox: { profile: "off" } } as const;

describe("bash", () => {
  it("runs in the workspace root and reports exit code 0", async () => {
    const ws = await workspace({ "a.txt": "hello\n" });
    const result = await ws.call("bash", { command: "pwd; cat a.txt" });
    expect(result.isError).toBe(false);
    expect(result.text).toBe(`${ws.root}\nhello\n\nExit code: 0`);
    expect(result.details).toMatchObject({
      command: "pwd; cat a.txt",
      cwd: ".",
      exitCode: 0,
      timedOut: false,
      aborted: false,
    });
  });

  it("runs in a subdirectory", async () => {
    const ws = await workspace({ "pkg/b.txt": "b\n" });
    const result = await ws.call("bash", { command: "ls", cwd: "pkg" });
    expect(result.text).toBe("b.txt\n\nExit code: 0");
    expect(result.details.cwd).toBe("pkg");
  });

  it("turns a non-zero exit into an error result that still shows stdout and stderr", async () => {
    const ws = await workspace();
    const result = await ws.call("bash", { command: "echo out; echo err >&2; exit 3" });
    expect(result.isError).toBe(true);
    expect(result.text).toBe("out\nerr\n\nExit code: 3");
    expect(result.details.exitCode).toBe(3);
  });

  it("says when there is no output", async () => {
    const ws = await workspace();
    expect((await ws.call("bash", { command: "true" })).text).toBe("(no output)\n\nExit code: 0");
  });

  it("kills the command at its timeout", async () => {
    // The limit runs out when the test says: once the command has printed "begun" (the marker
    // file comes after it), however slow the machine. The sleep outlasts the test's timeout, so
    // only the kill lets this finish.
    let limit: number | undefined;
    const ws = await workspace(
      {},
      {
        bash: {
          startTimer: (ms, expire) => {
            limit = ms;
            let cancelled = false;
            void waitFor(() => cancelled || existsSync(path.join(ws.root, "began")) || undefined)
              .then(() => cancelled || expire())
              .catch(() => {}); // never began: the test's timeout reports the hang
            return () => {
              cancelled = true;
            };
          },
        },
      },
    );
    const result = await ws.call("bash", { command: "echo begun; : > began; sleep 120", timeout: 2 });
    expect(limit).toBe(2000);
    expect(result.isError).toBe(true);
    expect(result.text).toBe("begun\n\nThe command timed out after 2 s and was killed.");
    expect(result.details).toMatchObject({ timedOut: true, exitCode: null, signal: "SIGKILL" });
  });

  it("keeps the head and the tail of long output", async () => {
    const ws = await workspace({}, { bash: { maxOutputBytes: 300 } });
    const result = await ws.call("bash", { command: "for i in $(seq 1 2000); do echo line $i; done" });
    expect(result.isError).toBe(false);
    expect(result.text.startsWith("line 1\nline 2\n")).toBe(true);
    expect(result.text.endsWith("line 1999\nline 2000\n\nExit code: 0")).toBe(true);
    // 1..9: 7 bytes, 10..99: 8, 100..999: 9, 1000..2000: 10 bytes a line.
    const total = 9 * 7 + 90 * 8 + 900 * 9 + 1001 * 10;
    expect(result.details).toMatchObject({ truncated: true, outputBytes: total });
    expect(result.text).toContain(`[… ${total - 300} bytes of output omitted …]`);
    const keptBytesCeiling = 450; // head + tail + the omission note, in bytes
    expect(Buffer.byteLength(result.text)).toBeLessThan(keptBytesCeiling);
  });

  it("streams progress updates while the command runs", async () => {
    const ws = await workspace();
    // "second" waits for a file the test writes once the first update has arrived, so that update
    // holds "first" alone however slow the machine is.
    const go = path.join(ws.root, "go");
    const result = await ws.call(
      "bash",
      { command: "echo first; while [ ! -e go ]; do sleep 0.05; done; echo second" },
      undefined,
      () => void writeFile(go, ""),
    );
    expect(result.text).toBe("first\nsecond\n\nExit code: 0");
    expect(result.updates.length).toBeGreaterThanOrEqual(1);
    expect(result.updates[0]!.content).toBe("first\n");
  });

  it("abort kills the whole process group (profile off)", async () => {
    const ws = await workspace({}, OFF);
    const controller = new AbortController();
    const running = ws.call(
      "bash",
      { command: "echo $$ > shell.pid; sleep 30 & sleep 30; wait" },
      controller.signal,
    );
    const pgid = await waitFor(async () => {
      const text = await readFile(path.join(ws.root, "shell.pid"), "utf8").catch(() => "");
      return text.trim() === "" ? undefined : Number(text);
    });
    // The shell and both sleeps are up.
    await waitFor(() => (groupMembers(pgid).length >= 3 ? true : undefined));
    controller.abort();
    const result = await running;
    expect(result.isError).toBe(true);
    expect(result.text).toBe("(no output)\n\nThe command was aborted; its process group was killed.");
    expect(result.details.aborted).toBe(true);
    await waitFor(() => (groupMembers(pgid).length === 0 ? true : undefined));
  });

  it("stops background jobs when the command ends (profile off)", async () => {
    const ws = await workspace({}, OFF);
    const result = await ws.call("bash", { command: "sleep 30 & echo $$" });
    expect(result.isError).toBe(false);
    const pgid = Number(result.text.split("\n")[0]);
    await waitFor(() => (groupMembers(pgid).length === 0 ? true : undefined));
  });

  it("does not start when the run is already aborted", async () => {
    const ws = await workspace();
    const controller = new AbortController();
    controller.abort();
    const result = await ws.call("bash", { command: "touch made" }, controller.signal);
    expect(result).toMatchObject({
      isError: true,
      text: "The command was not started: the run was aborted.",
    });
    await expect(readFile(path.join(ws.root, "made"))).rejects.toThrow();
  });

  it("reports a shell that cannot start", async () => {
    const ws = await workspace({}, { bash: { shell: "/nonexistent/shell" }, ...OFF });
    const result = await ws.call("bash", { command: "true" });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^Could not start \/nonexistent\/shell: .*ENOENT/);
  });

  it("refuses a timeout above the maximum through the schema", async () => {
    const ws = await workspace({}, { bash: { defaultTimeoutMs: 5000, maxTimeoutMs: 10_000 } });
    const result = await ws.call("bash", { command: "true", timeout: 11 });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("timeout");
  });
});
