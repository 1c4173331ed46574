// The network allow-list of the sandbox: host patterns (`registry.npmjs.org`, `*.npmjs.org`,
// `localhost:8080`, `10.0.0.5`, `[::1]:3000`, `*`), and the verdict on one destination. Deny wins
// over allow. A name is judged by every address it resolves to: one that is not public
// (loopback, private, link-local, ...; the SSRF guard's classification) passes only when the
// allow-list names that address itself, or names `localhost` (for loopback), so an allowed name that
// resolves to an internal address (DNS rebinding) is refused.

import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { checkAddress } from "../web/address-guard.js";

export interface HostPattern {
  /** As written, for messages. */
  text: string;
  /** Lower case, no trailing dot; an IP address in its normal form; "*" any host; "*.x" any name under x. */
  host: string;
  /** Any port when absent. */
  port?: number;
}

export interface HostRules {
  allow: readonly HostPattern[];
  deny: readonly HostPattern[];
}

/** checkHost's verdict on a host the lists do not mention (the one case the user may be asked about). */
export const NOT_LISTED = "not in the allow-list";
/** A name that is allowed to resolve to loopback without its address being named. */
const LOCAL_NAME = "localhost";
/** Host names of DNS: letters, digits, hyphens and underscores between dots. */
const NAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/** Parses `HOST[:PORT]`; throws an Error saying what is wrong (the CLI turns it into a usage error). */
export function parseHostPattern(text: string): HostPattern {
  const trimmed = text.trim();
  let host = trimmed;
  let portText: string | undefined;
  if (trimmed.startsWith("[")) {
    const end = trimmed.indexOf("]");
    if (end < 0) throw new Error(`host pattern "${text}": missing "]"`);
    host = trimmed.slice(1, end);
    const rest = trimmed.slice(end + 1);
    if (rest !== "") {
      if (!rest.startsWith(":")) throw new Error(`host pattern "${text}": expected ":PORT" after "]"`);
      portText = rest.slice(1);
    }
  } else if (trimmed.split(":").length === 2) {
    [host, portText] = trimmed.split(":") as [string, string];
  }
  const pattern: HostPattern = { text: trimmed, host: normalHost(host) };
  if (pattern.host === "") throw new Error(`host pattern "${text}": no host`);
  if (isIP(pattern.host) === 0 && pattern.host !== "*") {
    const name = pattern.host.startsWith("*.") ? pattern.host.slice(2) : pattern.host;
    if (!NAME.test(name))
      throw new Error(
        `host pattern "${text}": not a host name or IP address (wildcards only as "*" or a leading "*.")`,
      );
  }
  if (portText !== undefined) {
    const port = Number(portText);
    if (!/^\d+$/.test(portText) || port < 1 || port > 65535)
      throw new Error(`host pattern "${text}": the port must be 1-65535`);
    pattern.port = port;
  }
  return pattern;
}

export function parseHostRules(allow: readonly string[] = [], deny: readonly string[] = []): HostRules {
  return { allow: allow.map(parseHostPattern), deny: deny.map(parseHostPattern) };
}

/** Lower case without a trailing dot; an IP address in ipaddr.js's normal form. */
export function normalHost(host: string): string {
  const lower = host.trim().toLowerCase().replace(/\.$/, "");
  const bare = lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
  return isIP(bare) === 0 ? bare : ipaddr.process(bare).toString();
}

function matches(pattern: HostPattern, host: string, port: number): boolean {
  if (pattern.port !== undefined && pattern.port !== port) return false;
  if (pattern.host === "*") return true;
  if (pattern.host.startsWith("*.")) return host.endsWith(pattern.host.slice(1));
  return pattern.host === host;
}

/** The first pattern of `list` that matches host:port, if any. */
export function findPattern(
  list: readonly HostPattern[],
  host: string,
  port: number,
): HostPattern | undefined {
  const normal = normalHost(host);
  return list.find((pattern) => matches(pattern, normal, port));
}

/** Why host:port may not be reached before any name is resolved, or undefined when it may (so far). */
export function checkHost(rules: HostRules, host: string, port: number): string | undefined {
  const denied = findPattern(rules.deny, host, port);
  if (denied) return `denied by "${denied.text}"`;
  if (!findPattern(rules.allow, host, port)) return NOT_LISTED;
  return undefined;
}

/**
 * Why `host` may not be reached at `address` (one it resolved to), or undefined when it may: a
 * denied address, or a non-public one that the allow-list does not name (`localhost`, when named
 * without a wildcard, may be loopback).
 */
export function checkResolved(
  rules: HostRules,
  host: string,
  port: number,
  address: string,
): string | undefined {
  const denied = findPattern(rules.deny, address, port);
  if (denied) return `${address} is denied by "${denied.text}"`;
  const verdict = checkAddress(address);
  if (verdict === undefined) return undefined;
  const named = rules.allow.filter((pattern) => !pattern.host.includes("*"));
  if (findPattern(named, address, port)) return undefined;
  const localNamed = normalHost(host) === LOCAL_NAME && findPattern(named, host, port) !== undefined;
  if (localNamed && ipaddr.process(address).range() === "loopback") return undefined;
  return `${verdict}, which the allow-list does not name`;
}
