// How `bash` starts a command: under bubblewrap (profile "sandbox", the default) or directly
// (profile "off", only when the user chose it). Where bubblewrap is missing or cannot create
// namespaces, the "sandbox" profile refuses to run commands and says how to install it or opt out:
// it never falls back silently. Network: none (the default), all (allowNet), or through a proxy
// that checks each destination against a host allow-list (allowHosts / denyHosts), one proxy per
// launched command.

import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SandboxNetwork, SandboxOptions, SandboxProfile } from "../types.js";
import { bubblewrapArguments, findBubblewrap, probeBubblewrap } from "./bubblewrap.js";
import { scrubEnvironment } from "./environment.js";
import { hiddenPaths } from "./hidden-paths.js";
import { type HostPattern, normalHost, parseHostRules } from "./host-rules.js";
import { type Destination, type NetworkProxy, startNetworkProxy } from "./network-proxy.js";
import { SANDBOX_PROFILES } from "./profiles.js";
import { bridgeCommand, DEFAULT_PROXY_PORTS, proxyEnvironment } from "./proxy-bridge.js";

const INSTALL_HINT =
  "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) " +
  'or run commands without a sandbox explicitly (tern: --sandbox off, or "sandbox": "off" in config.json; ' +
  'library: createTools({ sandbox: { profile: "off" } }))';

/** What a sandbox can do here, for run headers and error messages. */
export type SandboxStatus =
  | { profile: "off" }
  | { profile: "sandbox"; available: true; bwrap: string; allowNet: boolean; network: SandboxNetwork }
  | { profile: "sandbox"; available: false; reason: string };

/** A program and arguments ready to spawn, or why the command may not run. */
export type Launch =
  | {
      ok: true;
      program: string;
      args: string[];
      env: NodeJS.ProcessEnv;
      /**
       * With a host allow-list: the command's proxy. Close it when the command has ended (its
       * refusals are for the command's result); a proxy never closed lives until tern exits.
       */
      proxy?: NetworkProxy;
    }
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

/**
 * Socket directories of proxies not closed yet, removed when the process exits: an MCP server's
 * proxy lives as long as tern and is never closed.
 */
const leftAtExit = new Set<string>();
process.once("exit", () => {
  for (const dir of leftAtExit) rmSync(dir, { recursive: true, force: true });
});

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const profile = options.profile ?? "sandbox";
  if (!SANDBOX_PROFILES.includes(profile))
    throw new Error(`unknown sandbox profile "${profile}"; known: ${SANDBOX_PROFILES.join(", ")}`);
  const allowNet = options.allowNet === true;
  const rules = parseHostRules(options.allowHosts, options.denyHosts);
  const network: SandboxNetwork = allowNet
    ? "all"
    : rules.allow.length + rules.deny.length > 0
      ? "hosts"
      : "none";
  const proxyPorts = { ...DEFAULT_PROXY_PORTS, ...options.proxyPorts };
  const ask = options.askHost ? rememberAnswers(options.askHost, rules.allow as HostPattern[]) : undefined;

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
    return { profile, available: true, bwrap, allowNet, network };
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
      const readOnly = [...(request.readOnly ?? [])];
      let command = shellArgs;
      let proxy: NetworkProxy | undefined;
      if (network === "hosts") {
        // The proxy's sockets live in a directory of their own, shown read-only inside (connect()
        // still works); the bridge in front of the command is the sandbox's only way out.
        const dir = await mkdtemp(path.join(options.proxySocketDir ?? tmpdir(), "tern-net-"));
        const httpSocket = path.join(dir, "http.sock");
        const socksSocket = path.join(dir, "socks.sock");
        const started = await startNetworkProxy({
          httpSocket,
          socksSocket,
          rules,
          ...(options.lookupHost ? { lookup: options.lookupHost } : {}),
          ...(ask ? { ask } : {}),
        });
        leftAtExit.add(dir);
        proxy = {
          refusals: started.refusals,
          close: async () => {
            await started.close();
            await rm(dir, { recursive: true, force: true });
            leftAtExit.delete(dir);
          },
        };
        readOnly.push(dir);
        command = bridgeCommand(
          [
            [proxyPorts.http, httpSocket],
            [proxyPorts.socks, socksSocket],
          ],
          shellArgs,
        );
      }
      const args = bubblewrapArguments({
        root: request.root,
        cwd: request.cwd,
        allowNet,
        hidden: hiddenPaths(process.env, options.hide),
        ...(readOnly.length > 0 ? { readOnly } : {}),
      });
      // The host's temporary directory is not writable inside; the private /tmp is.
      return {
        ok: true,
        program: current.bwrap,
        args: [...args, ...command],
        env: { ...env, TMPDIR: "/tmp", ...(proxy ? proxyEnvironment(proxyPorts) : {}) },
        ...(proxy ? { proxy } : {}),
      };
    },
  };
}

/** A few words for a run header: what confines `bash`. */
export function describeSandbox(status: SandboxStatus): string {
  if (status.profile === "off") return "sandbox off";
  if (!status.available) return "sandbox unavailable";
  if (status.network === "hosts") return "sandbox on, network through the host allow-list";
  return status.allowNet ? "sandbox on, network allowed" : "sandbox on";
}

/**
 * The user's answers for the session: a host:port allowed once joins `allow` (which the proxy
 * reads at every connection), and one question at a time per host:port.
 */
function rememberAnswers(
  askHost: NonNullable<SandboxOptions["askHost"]>,
  allow: HostPattern[],
): (destination: Destination, signal: AbortSignal) => Promise<boolean> {
  const pending = new Map<string, Promise<boolean>>();
  return (destination, signal) => {
    const host = normalHost(destination.host);
    const key = `${host.includes(":") ? `[${host}]` : host}:${destination.port}`;
    let answer = pending.get(key);
    if (!answer) {
      answer = Promise.resolve(askHost(destination, signal)).then((yes) => {
        if (yes) allow.push({ text: `${key} (allowed for the session)`, host, port: destination.port });
        else pending.delete(key);
        return yes;
      });
      pending.set(key, answer);
    }
    return answer;
  };
}

/** What to tell the user once when the sandbox cannot run; undefined when it can (or is off). */
export function sandboxWarning(status: SandboxStatus): string | undefined {
  if (status.profile === "off" || status.available) return undefined;
  return `bash is disabled: ${status.reason}; to run commands, ${INSTALL_HINT}`;
}
