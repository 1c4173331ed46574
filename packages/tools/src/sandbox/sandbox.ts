// How `bash` starts a command: under bubblewrap (profile "sandbox", the default) or directly
// (profile "off", only when the user chose it). Where bubblewrap is missing or cannot create
// namespaces, the "sandbox" profile refuses to run commands and says how to install it or opt out:
// it never falls back silently.

import type { SandboxOptions, SandboxProfile } from "../types.js";
import { bubblewrapArguments, findBubblewrap, probeBubblewrap } from "./bubblewrap.js";
import { scrubEnvironment } from "./environment.js";
import { hiddenPaths } from "./hidden-paths.js";

export const SANDBOX_PROFILES: readonly SandboxProfile[] = ["sandbox", "off"];

const INSTALL_HINT =
  "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) " +
  'or run commands without a sandbox explicitly (tern: --sandbox off, or "sandbox": "off" in config.json; ' +
  'library: createTools({ sandbox: { profile: "off" } }))';

/** What a sandbox can do here, for run headers and error messages. */
export type SandboxStatus =
  | { profile: "off" }
  | { profile: "sandbox"; available: true; bwrap: string; allowNet: boolean }
  | { profile: "sandbox"; available: false; reason: string };

/** A program and arguments ready to spawn, or why the command may not run. */
export type Launch =
  | { ok: true; program: string; args: string[]; env: NodeJS.ProcessEnv }
  | { ok: false; error: string };

export interface LaunchRequest {
  shell: string;
  command: string;
  /** A program and its arguments to run instead of `shell -c command` (an MCP server's command line). */
  argv?: readonly string[];
  /** Workspace root (real path). */
  root: string;
  /** Working directory (absolute, inside the root). */
  cwd: string;
  /** The command's environment; default: tern's own, scrubbed of keys. */
  env?: NodeJS.ProcessEnv;
  /** Shell options before `-c` (command hooks pass --norc). */
  shellOptions?: readonly string[];
  /**
   * Host paths the program needs to read that the private /tmp would hide (an MCP server installed
   * in a checkout under /tmp): shown read-only, never writable.
   */
  readOnly?: readonly string[];
}

export interface Sandbox {
  readonly profile: SandboxProfile;
  status(): Promise<SandboxStatus>;
  launch(request: LaunchRequest): Promise<Launch>;
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const profile = options.profile ?? "sandbox";
  if (!SANDBOX_PROFILES.includes(profile))
    throw new Error(`unknown sandbox profile "${profile}"; known: ${SANDBOX_PROFILES.join(", ")}`);
  const allowNet = options.allowNet === true;

  const status = async (): Promise<SandboxStatus> => {
    if (profile === "off") return { profile };
    if (process.platform !== "linux")
      return {
        profile,
        available: false,
        reason: `the sandbox uses bubblewrap, which needs Linux (this is ${process.platform})`,
      };
    const bwrap = findBubblewrap(options.bwrap, process.env);
    if (bwrap === undefined)
      return { profile, available: false, reason: "bubblewrap (bwrap) is not installed" };
    const probe = await probeBubblewrap(bwrap, allowNet);
    if (!probe.ok) return { profile, available: false, reason: probe.reason };
    return { profile, available: true, bwrap, allowNet };
  };

  return {
    profile,
    status,
    async launch(request) {
      const env = request.env ?? scrubEnvironment(process.env);
      const shellArgs = request.argv
        ? [...request.argv]
        : [request.shell, ...(request.shellOptions ?? []), "-c", request.command];
      const current = await status();
      if (current.profile === "off")
        return { ok: true, program: shellArgs[0]!, args: shellArgs.slice(1), env };
      if (!current.available)
        return { ok: false, error: `Commands cannot run: ${current.reason}. To fix, ${INSTALL_HINT}.` };
      const args = bubblewrapArguments({
        root: request.root,
        cwd: request.cwd,
        allowNet,
        hidden: hiddenPaths(process.env, options.hide),
        ...(request.readOnly ? { readOnly: request.readOnly } : {}),
      });
      // The host's temporary directory is not writable inside; the private /tmp is.
      return {
        ok: true,
        program: current.bwrap,
        args: [...args, ...shellArgs],
        env: { ...env, TMPDIR: "/tmp" },
      };
    },
  };
}

/** A few words for a run header: what confines `bash`. */
export function describeSandbox(status: SandboxStatus): string {
  if (status.profile === "off") return "sandbox off";
  if (!status.available) return "sandbox unavailable";
  return status.allowNet ? "sandbox on, network allowed" : "sandbox on";
}

/** What to tell the user once when the sandbox cannot run; undefined when it can (or is off). */
export function sandboxWarning(status: SandboxStatus): string | undefined {
  if (status.profile === "off" || status.available) return undefined;
  return `bash is disabled: ${status.reason}; to run commands, ${INSTALL_HINT}`;
}
