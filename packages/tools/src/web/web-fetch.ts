// The web_fetch tool: GET one http(s) URL and give the model its readable content (Markdown for
// HTML). Guarded against SSRF (address-guard.ts), capped in bytes read, characters returned and
// time, and gated like any tool by permission rules (`web_fetch(domain:example.com)`).

import type { AgentToolResult } from "@tern/agent";
import { z } from "zod";
import { formatBytes } from "../text.js";
import { toolError } from "../tools/result.js";
import type { BuiltinTool } from "../types.js";
import type { AddressGuardOptions } from "./address-guard.js";
import { guardedGet } from "./http-get.js";
import { mediaType, toReadable } from "./readable.js";

export const WEB_FETCH_DEFAULTS = {
  /**
   * Bytes of a response body downloaded at most. Converting HTML runs on the event loop (about
   * 1.7 s for 1 MB on a loaded 2-core machine), so the default keeps that bounded.
   */
  maxBytes: 1024 * 1024,
  /** Characters of text handed to the model at most. */
  maxOutputChars: 100_000,
  timeoutMs: 30_000,
  maxRedirects: 5,
  userAgent: "tern-web-fetch/0.1 (+https://github.com/tern)",
} as const;

export interface WebFetchOptions extends AddressGuardOptions {
  maxBytes?: number;
  maxOutputChars?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  userAgent?: string;
}

export interface WebFetchDetails {
  url: string;
  /** Where the content came from after same-host redirects. */
  finalUrl?: string;
  status?: number;
  contentType?: string;
  bytes?: number;
  /** The body or the text was cut at a cap. */
  truncated?: boolean;
  /** A redirect to another host, not followed. */
  redirect?: string;
}

const parameters = z.object({
  url: z.string().describe("The http:// or https:// URL to fetch."),
});

export function webFetchTool(
  options: WebFetchOptions = {},
): BuiltinTool<z.infer<typeof parameters>, WebFetchDetails> {
  const limits = {
    maxBytes: options.maxBytes ?? WEB_FETCH_DEFAULTS.maxBytes,
    timeoutMs: options.timeoutMs ?? WEB_FETCH_DEFAULTS.timeoutMs,
    maxRedirects: options.maxRedirects ?? WEB_FETCH_DEFAULTS.maxRedirects,
    userAgent: options.userAgent ?? WEB_FETCH_DEFAULTS.userAgent,
    guard: { allowPrivateAddresses: options.allowPrivateAddresses ?? [] },
  };
  const maxOutputChars = options.maxOutputChars ?? WEB_FETCH_DEFAULTS.maxOutputChars;
  return {
    name: "web_fetch",
    label: "Fetch web page",
    // Reaches the network, and a URL can carry data out: asks like a command unless a rule allows it.
    kind: "exec",
    description:
      "Fetch a public web page or text file over http(s) and return its readable content: HTML as Markdown (the main article, without navigation), text and JSON as they are. " +
      `Reads at most ${formatBytes(limits.maxBytes)} and returns at most ${maxOutputChars} characters; binary files are refused, and so are private and internal network addresses. ` +
      "A redirect to another host is reported, not followed: fetch the new URL yourself if you still need it.",
    parameters,
    async execute({ url }, { signal }): Promise<AgentToolResult<WebFetchDetails>> {
      const got = await guardedGet(url, limits, signal);
      if (!got.ok) return toolError(got.error, { url });
      if ("redirect" in got)
        return {
          content: `${got.url} redirects (HTTP ${got.status}) to another host: ${got.redirect}\nCall web_fetch with that URL to read it.`,
          details: { url, finalUrl: got.url, status: got.status, redirect: got.redirect },
        };
      const details: WebFetchDetails = {
        url,
        finalUrl: got.url,
        status: got.status,
        contentType: mediaType(got.contentType),
        bytes: got.body.length,
        truncated: got.truncated,
      };
      const readable = await toReadable(got.body, got.contentType, got.url);
      if (!readable.ok) return toolError(readable.error, details);
      let text = readable.text;
      const notes: string[] = [];
      if (got.truncated)
        notes.push(`the page is larger than ${formatBytes(limits.maxBytes)}; only that much was read`);
      if (text.length > maxOutputChars) {
        text = text.slice(0, maxOutputChars);
        details.truncated = true;
        notes.push(`the text was cut at ${maxOutputChars} characters`);
      }
      const head = [
        readable.title ? `# ${readable.title}` : undefined,
        `URL: ${got.url}`,
        got.status >= 400 ? `HTTP status: ${got.status}` : undefined,
      ].filter(Boolean);
      const tail = notes.length > 0 ? `\n\n[${notes.join("; ")}]` : "";
      const result: AgentToolResult<WebFetchDetails> = {
        content: `${head.join("\n")}\n\n${text}${tail}`,
        details,
      };
      if (got.status >= 400) result.isError = true;
      return result;
    },
  };
}
