// The MCP server configuration users already write for Claude Code and the Copilot CLI:
// `{"mcpServers": {name: {command, args, env, cwd} | {type: "http" | "sse", url, headers}}}`.
// Parsing is pure and never throws: every malformed entry becomes a problem naming its file and
// server, and the good entries still load.

import { isAbsolute, resolve } from "node:path";

/** A server started as a child process that speaks MCP on its stdin and stdout. */
export interface StdioServerConfig {
  type: "stdio";
  command: string;
  args: string[];
  /** Added to the safe default environment (PATH, HOME, ...), not to this process's whole one. */
  env: Record<string, string>;
  /** Absolute; a relative `cwd` in a file is resolved against that file's folder. */
  cwd?: string;
}

/** A remote server: "http" is streamable HTTP with the SSE fallback, "sse" is the old HTTP+SSE transport. */
export interface RemoteServerConfig {
  type: "http" | "sse";
  url: string;
  /** Sent with every request (auth tokens). */
  headers: Record<string, string>;
}

export type McpServerConfig = StdioServerConfig | RemoteServerConfig;

/** Where a server was declared: the project's `.mcp.json`, the user's `mcp.json`, or a file given explicitly. */
export type McpConfigScope = "project" | "user" | "extra";

export interface McpServerEntry {
  name: string;
  config: McpServerConfig;
  scope: McpConfigScope;
  /** The file it came from. */
  file: string;
}

/** A malformed file or entry: reported, skipped, never thrown. */
export interface McpConfigProblem {
  file: string;
  /** Absent when the whole file is at fault. */
  server?: string;
  message: string;
}

export interface ParsedMcpConfig {
  servers: McpServerEntry[];
  problems: McpConfigProblem[];
}

const STDIO_TYPES = new Set(["stdio", "local"]);
const REMOTE_TYPES = new Set(["http", "streamable-http", "streamableHttp", "sse"]);

/**
 * Parses the text of one configuration file. `file` names it in problems and anchors relative
 * `cwd`s; `env` expands `${VAR}` and `${VAR:-default}` in commands, args, env values, urls and headers
 * (default: no variables, so only `${VAR:-default}` expands; the host passes its environment).
 */
export function parseMcpConfig(
  text: string,
  file: string,
  scope: McpConfigScope,
  env: Record<string, string | undefined> = {},
): ParsedMcpConfig {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { servers: [], problems: [{ file, message: `not valid JSON: ${(error as Error).message}` }] };
  }
  if (!isObject(data)) return fileProblem(file, "must be a JSON object with an `mcpServers` object");
  const table = data.mcpServers;
  if (table === undefined) return { servers: [], problems: [] };
  if (!isObject(table)) return fileProblem(file, "`mcpServers` must be an object of server name to server");
  const result: ParsedMcpConfig = { servers: [], problems: [] };
  for (const [name, raw] of Object.entries(table)) {
    const parsed = parseServer(raw, file, env);
    if (typeof parsed === "string") result.problems.push({ file, server: name, message: parsed });
    else if (name.trim() === "")
      result.problems.push({ file, server: name, message: "the server name is empty" });
    else result.servers.push({ name, config: parsed, scope, file });
  }
  return result;
}

/** One server's entry, or the reason it is malformed. */
function parseServer(
  raw: unknown,
  file: string,
  env: Record<string, string | undefined>,
): McpServerConfig | string {
  if (!isObject(raw)) return "must be an object with `command` (local) or `url` (remote)";
  const type = raw.type ?? (raw.url !== undefined && raw.command === undefined ? "http" : "stdio");
  if (typeof type !== "string") return "`type` must be a string";
  const expand = expander(env);
  try {
    if (STDIO_TYPES.has(type)) {
      if (typeof raw.command !== "string" || raw.command.trim() === "") {
        return "`command` must be a non-empty string";
      }
      const args = stringList(raw.args, "args");
      const vars = stringMap(raw.env, "env");
      if (raw.cwd !== undefined && typeof raw.cwd !== "string") return "`cwd` must be a string";
      const config: StdioServerConfig = {
        type: "stdio",
        command: expand(raw.command),
        args: args.map(expand),
        env: mapValues(vars, expand),
      };
      if (typeof raw.cwd === "string") {
        const cwd = expand(raw.cwd);
        config.cwd = isAbsolute(cwd) ? cwd : resolve(file, "..", cwd);
      }
      return config;
    }
    if (REMOTE_TYPES.has(type)) {
      if (typeof raw.url !== "string") return "`url` must be a string";
      const url = expand(raw.url);
      let parsedUrl: URL;
      try {
        parsedUrl = new URL(url);
      } catch {
        return `\`url\` is not a URL: ${JSON.stringify(url)}`;
      }
      if (parsedUrl.protocol !== "http:" && parsedUrl.protocol !== "https:") {
        return `\`url\` must be http or https, not ${parsedUrl.protocol}`;
      }
      const headers = mapValues(stringMap(raw.headers, "headers"), expand);
      return { type: type === "sse" ? "sse" : "http", url, headers };
    }
  } catch (error) {
    return (error as Error).message;
  }
  return `unknown \`type\` ${JSON.stringify(type)} (use "stdio", "http" or "sse")`;
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `${VAR}` and `${VAR:-default}`; a missing variable without default is an error naming it. */
function expander(env: Record<string, string | undefined>): (text: string) => string {
  return (text) =>
    text.replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
      const value = env[name];
      if (value !== undefined && value !== "") return value;
      if (fallback !== undefined) return fallback;
      throw new Error(
        `the environment variable ${name} is not set (write \${${name}:-default} for a default)`,
      );
    });
}

function stringList(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    throw new Error(`\`${field}\` must be an array of strings`);
  }
  return value;
}

function stringMap(value: unknown, field: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value) || !Object.values(value).every((item) => typeof item === "string")) {
    throw new Error(`\`${field}\` must be an object of string values`);
  }
  return value as Record<string, string>;
}

function mapValues(map: Record<string, string>, fn: (text: string) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key, fn(value)]));
}

function fileProblem(file: string, message: string): ParsedMcpConfig {
  return { servers: [], problems: [{ file, message }] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
