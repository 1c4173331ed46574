// The SSRF guard of web_fetch: every address a request would connect to must be public unicast.
// DNS is resolved here and the connection goes to the address that was checked (a custom `lookup`
// for node:http), so a name cannot resolve to a public address for the check and a private one for
// the connection. Address ranges come from ipaddr.js, not from hand-written masks.

import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** Why an address was refused, or undefined when it may be used. */
export type AddressVerdict = string | undefined;

export interface AddressGuardOptions {
  /**
   * Exact addresses (e.g. "127.0.0.1") let through although they are not public: for tests and
   * their loopback servers. Never set by default, never reachable from a tool's arguments.
   */
  allowPrivateAddresses?: readonly string[];
}

/**
 * Only "unicast" (public) ranges pass: loopback, private (RFC 1918), link-local (and so cloud
 * metadata at 169.254.169.254), CGNAT 100.64/10, multicast, broadcast, unspecified, reserved,
 * unique-local fc00::/7 and the IPv6 translation ranges (6to4, Teredo, NAT64) are refused. An
 * IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as the IPv4 address it carries.
 */
export function checkAddress(address: string, options: AddressGuardOptions = {}): AddressVerdict {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const normal = parsed.toString();
  if (options.allowPrivateAddresses?.some((allowed) => sameAddress(allowed, normal))) return undefined;
  const range = parsed.range();
  if (range === "unicast") return undefined;
  return `${normal} is a ${RANGE_WORDS[range] ?? range} address`;
}

const RANGE_WORDS: Record<string, string> = {
  loopback: "loopback",
  private: "private network",
  linkLocal: "link-local",
  carrierGradeNat: "carrier-grade NAT (100.64.0.0/10)",
  multicast: "multicast",
  broadcast: "broadcast",
  unspecified: "unspecified",
  reserved: "reserved",
  uniqueLocal: "unique-local IPv6",
  ipv4Mapped: "IPv4-mapped",
};

function sameAddress(a: string, b: string): boolean {
  try {
    return ipaddr.process(a).toString() === ipaddr.process(b).toString();
  } catch {
    return false;
  }
}

/** The error a refused address produces; `code` lets callers tell it from network failures. */
export class BlockedAddressError extends Error {
  readonly code = "ERR_TERN_BLOCKED_ADDRESS";
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`refused to connect to ${host}: ${reason} (tern does not fetch private or internal addresses)`);
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:http(s) and net: resolves every address of the name and refuses the whole
 * name when any of them is not allowed (a name that mixes public and internal addresses is not
 * trusted); otherwise hands net exactly the checked addresses.
 */
export function guardedLookup(options: AddressGuardOptions = {}) {
  return (hostname: string, lookupOptions: { all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (addresses.length === 0) return callback(new BlockedAddressError(hostname, "no address"), []);
      for (const { address } of addresses) {
        const verdict = checkAddress(address, options);
        if (verdict) return callback(new BlockedAddressError(hostname, verdict), []);
      }
      if (lookupOptions.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/**
 * Checks a URL's host before connecting: IP literals never reach `lookup`, so they are judged
 * here; names are judged by `guardedLookup` at connect time.
 */
export function checkLiteralHost(hostname: string, options: AddressGuardOptions = {}): AddressVerdict {
  const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  if (isIP(bare) === 0) return undefined;
  return checkAddress(bare, options);
}
