// Public contracts of @tern/tools: the built-in tools' options and the structured `details` each
// tool returns for UIs. Permission types live in permissions/types.ts.

import type { AgentTool } from "@tern/agent";
import type { Workspace } from "./workspace.js";

/**
 * What a tool does to the world, for permission layers: "read" only looks, "write" changes files
 * in the workspace, "exec" runs arbitrary commands (anything can happen).
 */
export type ToolKind = "read" | "write" | "exec";

/** A built-in tool: an ordinary AgentTool that also says what kind of tool it is. */
export interface BuiltinTool<TParams = Record<string, unknown>, TDetails = unknown>
  extends AgentTool<TParams, TDetails> {
  kind: ToolKind;
  /** The workspace the tool is confined to (set by createTools). */
  workspace?: Workspace;
}

// biome-ignore lint/suspicious/noExplicitAny: one list holds tools of every parameter type
export type AnyBuiltinTool = BuiltinTool<any, any>;

export type BuiltinToolName = "read" | "write" | "edit" | "ls" | "glob" | "grep" | "bash";

export interface ReadOptions {
  /** Most lines one call returns. Default 2000. */
  maxLines?: number;
  /** Most bytes of file text one call returns. Default 50 000. */
  maxBytes?: number;
  /** Longer lines are cut (with a marker). Default 2000 characters. */
  maxLineLength?: number;
}

export interface SearchOptions {
  /** Most paths `glob` returns. Default 500. */
  maxGlobResults?: number;
  /** Most matching lines `grep` returns. Default 200. */
  maxGrepMatches?: number;
  /** `grep` skips files larger than this. Default 5 MB. */
  maxGrepFileBytes?: number;
}

export interface BashOptions {
  /** Default timeout when the model gives none. Default 120 s. */
  defaultTimeoutMs?: number;
  /** Largest timeout the model may ask for. Default 600 s. */
  maxTimeoutMs?: number;
  /** Output kept: this many bytes in total, split between head and tail. Default 30 000. */
  maxOutputBytes?: number;
  /**
   * Environment of the command, used as given. Default: this process's environment reduced to an
   * allow-list of harmless variables (no API keys or tokens) plus non-interactive pagers.
   */
  env?: NodeJS.ProcessEnv;
  /** Shell binary. Default "/bin/bash". */
  shell?: string;
  /**
   * Starts a command's time limit: calls `expire` once `ms` have passed and returns what cancels
   * it. Default: `setTimeout`. A test passes its own to decide when a limit runs out.
   */
  startTimer?: (ms: number, expire: () => void) => () => void;
}

/**
 * "sandbox": `bash` runs under bubblewrap (Linux): the workspace writable, the rest of the file
 * system read-only, secrets hidden, no network unless allowed, its own PID namespace.
 * "off": `bash` runs unconfined; only for a user who chose it.
 */
export type SandboxProfile = "sandbox" | "off";

/** What a sandboxed command can reach: nothing, the hosts of an allow-list (via a proxy), or everything. */
export type SandboxNetwork = "none" | "hosts" | "all";

export interface SandboxOptions {
  /** Default "sandbox". Where bubblewrap is unusable, bash calls fail until the user picks "off". */
  profile?: SandboxProfile;
  /** Let sandboxed commands use all of the network, unchecked. Default false. */
  allowNet?: boolean;
  /**
   * Hosts sandboxed commands may reach through tern's proxy (`HOST[:PORT]`, `*.example.com`, `*`);
   * ignored with allowNet. Addresses that are not public are refused unless named here.
   */
  allowHosts?: readonly string[];
  /** Hosts (or addresses) always refused; wins over allowHosts. */
  denyHosts?: readonly string[];
  /**
   * Asked when a command connects to a host that is not in allowHosts (only when a host list is
   * set); yes allows that host and port for the rest of the session. Without it, such hosts are
   * refused. `signal` aborts when the command has ended: stop asking (the answer no longer matters).
   */
  askHost?: (destination: { host: string; port: number }, signal: AbortSignal) => boolean | Promise<boolean>;
  /** How the proxy resolves names (every address of a name). Default: the system resolver. */
  lookupHost?: (host: string) => Promise<string[]>;
  /** The proxy's ports inside the sandbox. Default HTTP 3128, SOCKS5 1080. */
  proxyPorts?: { http?: number; socks?: number };
  /** Where the proxy's socket directory is made. Default: the system's temporary directory. */
  proxySocketDir?: string;
  /** More paths to hide inside the sandbox, besides HIDDEN_HOME_PATHS, HIDDEN_SYSTEM_PATHS and $TERN_HOME. */
  hide?: readonly string[];
  /** The bubblewrap binary. Default: `bwrap` on $PATH. */
  bwrap?: string;
}

export interface CreateToolsOptions {
  /** The workspace root; every path is confined to it. Must exist. */
  root: string;
  /** Only these tools (default: all seven). */
  only?: readonly BuiltinToolName[];
  read?: ReadOptions;
  search?: SearchOptions;
  bash?: BashOptions;
  /** How `bash` is confined. Default: the "sandbox" profile. */
  sandbox?: SandboxOptions;
  /** `ls` lists at most this many entries. Default 1000. */
  maxListEntries?: number;
  /**
   * Let read, edit, write and grep open files with more than one hard link. Default false: another
   * name of such a file may be outside the workspace (a hard link made by bash).
   */
  allowHardLinks?: boolean;
}

// ---------------------------------------------------------------- details (for UIs, never sent to the model)

export interface ReadDetails {
  path: string;
  /** First and last line shown (1-based); 0 and 0 for an empty file. */
  startLine: number;
  endLine: number;
  /** Lines in the file, when the whole file was scanned. */
  totalLines?: number;
  truncated: boolean;
  binary: boolean;
  sizeBytes: number;
}

export interface WriteDetails {
  path: string;
  bytes: number;
  created: boolean;
}

export interface EditDetails {
  path: string;
  replacements: number;
  /** Unified diff of the change; "" when it was too large to compute (see the result text). */
  diff: string;
  linesAdded: number;
  linesRemoved: number;
  /** First line (1-based, in the new file) the edit touched. */
  firstChangedLine: number;
}

export interface ListEntry {
  name: string;
  type: "file" | "directory" | "symlink" | "other";
  /** Bytes, for files. */
  size?: number;
}

export interface LsDetails {
  path: string;
  entries: ListEntry[];
  truncated: boolean;
}

export interface GlobDetails {
  pattern: string;
  path: string;
  /** Root-relative paths, sorted. */
  files: string[];
  truncated: boolean;
}

export interface GrepMatch {
  /** Root-relative path. */
  path: string;
  line: number;
  text: string;
}

export interface GrepDetails {
  pattern: string;
  path: string;
  matches: GrepMatch[];
  filesSearched: number;
  filesWithMatches: number;
  truncated: boolean;
}

export interface BashDetails {
  command: string;
  /** The sandbox profile the command ran under. */
  sandbox: SandboxProfile;
  /** Root-relative working directory ("." for the root). */
  cwd: string;
  /** null when the process was killed by a signal. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  /** The output was cut in the middle. */
  truncated: boolean;
  /** Bytes the command wrote (stdout and stderr). */
  outputBytes: number;
  durationMs: number;
}
