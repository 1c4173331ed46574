// bubblewrap (bwrap) command lines for one sandboxed shell command, and a cached probe that says
// whether bwrap exists here and can create the namespaces we ask for.

import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import type { HiddenPath } from "./hidden-paths.js";

/** Where to look when no bwrap path is configured: $PATH, then the usual install location. */
const DEFAULT_BWRAP = "bwrap";
const FALLBACK_DIRS = ["/usr/bin", "/usr/local/bin", "/bin"];
/** The probe's stderr is cut to this many characters in messages. */
const REASON_CHARS = 300;

/**
 * Capabilities, namespaces and process lifetime. bwrap run by root keeps root's capabilities
 * unless told otherwise, and CAP_SYS_ADMIN could remount / read-write: --cap-drop ALL.
 * --unshare-pid gives the command its own PID namespace: when
 * its first process ends, the kernel kills every process left in it (`setsid x &` included);
 * --die-with-parent ends it all when tern (or our kill) ends bwrap.
 */
const ISOLATION = [
  "--cap-drop",
  "ALL",
  "--die-with-parent",
  "--unshare-pid",
  "--unshare-ipc",
  "--unshare-uts",
  "--unshare-cgroup-try",
  "--new-session",
];

export interface SandboxPlan {
  /** Workspace root (real path): the only writable host directory. */
  root: string;
  /** Working directory inside the root. */
  cwd: string;
  allowNet: boolean;
  hidden: readonly HiddenPath[];
  /** Host paths under the private /tmp to show read-only again (a program's own files). */
  readOnly?: readonly string[];
}

/** bwrap's arguments up to and including "--"; the program and its arguments follow. */
export function bubblewrapArguments(plan: SandboxPlan): string[] {
  const args = [...ISOLATION];
  if (!plan.allowNet) args.push("--unshare-net");
  // Everything read-only, fresh /dev, /proc of the new PID namespace, a private /tmp.
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  // Mounts apply in order, so shallower paths go first: a secret inside the workspace is hidden
  // after the workspace is bound, and a workspace inside a hidden directory is bound after it.
  const mounts = [
    ...plan.hidden.map((entry) => ({
      path: entry.path,
      args: entry.kind === "dir" ? ["--tmpfs", entry.path] : ["--ro-bind", "/dev/null", entry.path],
    })),
    ...(plan.readOnly ?? []).map((shown) => ({ path: shown, args: ["--ro-bind", shown, shown] })),
    { path: plan.root, args: ["--bind", plan.root, plan.root] },
  ];
  mounts.sort((a, b) => depth(a.path) - depth(b.path));
  for (const mount of mounts) args.push(...mount.args);
  args.push("--chdir", plan.cwd, "--");
  return args;
}

function depth(p: string): number {
  return p.split(path.sep).filter(Boolean).length;
}

/** The bwrap binary: `configured`, else the first on $PATH or in the usual directories. */
export function findBubblewrap(configured: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (configured !== undefined) return configured;
  const dirs = [...(env.PATH ?? "").split(path.delimiter).filter(Boolean), ...FALLBACK_DIRS];
  for (const dir of dirs) {
    const candidate = path.join(dir, DEFAULT_BWRAP);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

export type Probe = { ok: true } | { ok: false; reason: string };

const probes = new Map<string, Promise<Probe>>();

/**
 * Runs `true` under bwrap with the real isolation flags, once per binary and network setting:
 * a bwrap that exists but cannot create namespaces (a container without user namespaces) fails
 * here, with its own message as the reason.
 */
export function probeBubblewrap(bwrap: string, allowNet: boolean): Promise<Probe> {
  const key = `${bwrap}\0${allowNet}`;
  let probe = probes.get(key);
  if (!probe) {
    probe = runProbe(bwrap, allowNet);
    probes.set(key, probe);
  }
  return probe;
}

function runProbe(bwrap: string, allowNet: boolean): Promise<Probe> {
  const args = bubblewrapArguments({ root: "/", cwd: "/", allowNet, hidden: [] });
  return new Promise((resolve) => {
    let stderr = "";
    const child = spawn(bwrap, [...args, "true"], { stdio: ["ignore", "ignore", "pipe"] });
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    child.on("error", (error) => resolve({ ok: false, reason: `${bwrap}: ${error.message}` }));
    child.on("close", (code, signal) => {
      if (code === 0) resolve({ ok: true });
      else
        resolve({
          ok: false,
          reason: `${bwrap} failed (${signal ?? `exit ${code}`}): ${stderr.trim().slice(0, REASON_CHARS) || "no message"}`,
        });
    });
  });
}
