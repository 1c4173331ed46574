// One guarded HTTP GET for web_fetch: node:http(s) with the SSRF guard's lookup, a cap on the
// bytes read, a deadline, and redirects followed by hand so each hop is checked again.

import http from "node:http";
import https from "node:https";
import {
  type AddressGuardOptions,
  BlockedAddressError,
  checkLiteralHost,
  guardedLookup,
} from "./address-guard.js";

export interface GetLimits {
  /** Bytes of body read at most; the rest is not downloaded. */
  maxBytes: number;
  /** Deadline for the whole fetch, redirects included. */
  timeoutMs: number;
  /** Redirects followed at most. */
  maxRedirects: number;
  userAgent: string;
  guard: AddressGuardOptions;
}

export type GetResult =
  | {
      ok: true;
      url: string;
      status: number;
      contentType: string;
      body: Buffer;
      /** The body was longer than maxBytes and was cut there. */
      truncated: boolean;
    }
  /** A redirect to another host: not followed, so the caller's domain rules can judge the target. */
  | { ok: true; redirect: string; url: string; status: number }
  | { ok: false; error: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** GETs `url`. Never throws: every failure is an `{ ok: false }` with a readable reason. */
export async function guardedGet(url: string, limits: GetLimits, signal: AbortSignal): Promise<GetResult> {
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(limits.timeoutMs)]);
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    return { ok: false, error: `"${url}" is not a valid URL` };
  }
  for (let hop = 0; ; hop++) {
    const refused = checkUrl(current, limits.guard);
    if (refused) return { ok: false, error: refused };
    let answer: Answer;
    try {
      answer = await requestOnce(current, limits, deadline);
    } catch (error) {
      return { ok: false, error: failureText(error, current, limits, signal) };
    }
    if (!("location" in answer)) return { ok: true, url: current.href, ...answer };
    let next: URL;
    try {
      next = new URL(answer.location, current);
    } catch {
      return { ok: false, error: `${current.href} redirected to an invalid URL "${answer.location}"` };
    }
    // The target is checked even when not followed: a redirect into the internal network is refused.
    const refusedNext = checkUrl(next, limits.guard);
    if (refusedNext)
      return { ok: false, error: `${current.href} redirected to ${next.href}: ${refusedNext}` };
    if (next.hostname !== current.hostname)
      return { ok: true, redirect: next.href, url: current.href, status: answer.status };
    if (hop + 1 > limits.maxRedirects)
      return { ok: false, error: `too many redirects (more than ${limits.maxRedirects}) from ${url}` };
    current = next;
  }
}

function checkUrl(url: URL, guard: AddressGuardOptions): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `only http and https URLs are fetched, not ${url.protocol.replace(/:$/, "")}`;
  if (url.username || url.password) return "URLs with credentials are not fetched";
  const verdict = checkLiteralHost(url.hostname, guard);
  return verdict ? new BlockedAddressError(url.hostname, verdict).message : undefined;
}

type Answer =
  | { status: number; contentType: string; body: Buffer; truncated: boolean }
  | { status: number; location: string };

function requestOnce(url: URL, limits: GetLimits, signal: AbortSignal): Promise<Answer> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise<Answer>((resolve, reject) => {
    const request = client.get(
      url,
      {
        signal,
        lookup: guardedLookup(limits.guard) as unknown as typeof import("node:dns").lookup,
        headers: {
          "user-agent": limits.userAgent,
          accept: "text/html,application/xhtml+xml,text/*;q=0.9,application/json;q=0.8,*/*;q=0.1",
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        if (REDIRECTS.has(status) && location) {
          response.resume();
          return resolve({ status, location });
        }
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        const finish = () =>
          resolve({
            status,
            contentType: String(response.headers["content-type"] ?? ""),
            body: Buffer.concat(chunks),
            truncated,
          });
        response.on("data", (chunk: Buffer) => {
          if (truncated) return;
          const room = limits.maxBytes - size;
          if (chunk.length >= room) {
            chunks.push(chunk.subarray(0, room));
            size = limits.maxBytes;
            // Some servers send more than the cap: stop downloading, keep what fits.
            truncated = chunk.length > room || !response.complete;
            if (truncated) {
              response.destroy();
              finish();
            }
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        response.on("end", finish);
        response.on("error", reject);
      },
    );
    request.on("error", reject);
  });
}

function failureText(error: unknown, url: URL, limits: GetLimits, signal: AbortSignal): string {
  if (error instanceof BlockedAddressError) return error.message;
  if (signal.aborted) return "the fetch was aborted";
  const name = (error as Error)?.name;
  if (name === "AbortError" || name === "TimeoutError")
    return `fetching ${url.href} took longer than ${limits.timeoutMs / 1000} s and was stopped`;
  const code = (error as NodeJS.ErrnoException)?.code;
  const message = (error as Error)?.message ?? String(error);
  if (code === "ENOTFOUND") return `the host ${url.hostname} was not found`;
  return `fetching ${url.href} failed: ${message}`;
}
