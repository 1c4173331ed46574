import { describe, expect, it, vi } from "vitest";
import { classifyError, retryAfterFrom } from "../src/errors.js";
import { createFaux, type RetryNotice, stream } from "../src/index.js";
import { backoffDelay, retryPolicy } from "../src/retry.js";

vi.mock("../src/delay.js", () => import("./support/delay-spy.js"));
const { onWait } = await import("./support/delay-spy.js");

describe("error classification", () => {
  const http = (status: number, message: string, headers: Record<string, string> = {}) =>
    Object.assign(new Error(message), { status, headers: new Headers(headers) });

  it.each([
    [http(401, "Incorrect API key"), "auth"],
    [http(429, "Rate limit reached"), "rate_limit"],
    [http(429, "You exceeded your current quota"), "auth"],
    [http(529, "Overloaded"), "overloaded"],
    [http(500, "internal"), "server"],
    [http(400, "This model's maximum context length is 8192 tokens"), "context_overflow"],
    [http(400, "prompt is too long: 210000 tokens > 200000 maximum"), "context_overflow"],
    [http(400, "Invalid value for 'temperature'"), "invalid_request"],
    [Object.assign(new Error("Connection error."), { name: "APIConnectionError" }), "network"],
    [Object.assign(new Error("connect"), { cause: { code: "ECONNREFUSED" } }), "network"],
    [{ error: { message: "odd payload" } }, "unknown"],
  ])("classifies %#", (error, kind) => {
    expect(classifyError(error).kind).toBe(kind);
  });

  it("reports aborts as aborted whatever was thrown", () => {
    const controller = new AbortController();
    controller.abort();
    expect(classifyError(new Error("socket hang up"), controller.signal).kind).toBe("aborted");
    expect(classifyError(Object.assign(new Error("x"), { name: "APIUserAbortError" })).kind).toBe("aborted");
  });

  it("reads Retry-After in seconds, as a date, and retry-after-ms", () => {
    expect(retryAfterFrom(new Headers({ "retry-after": "2" }))).toBe(2000);
    expect(retryAfterFrom(new Headers({ "retry-after-ms": "150" }))).toBe(150);
    expect(retryAfterFrom({ "retry-after": new Date(10_000).toUTCString() }, 7_000)).toBe(3000);
    expect(retryAfterFrom(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(classifyError(http(429, "slow down", { "retry-after": "3" })).retryAfterMs).toBe(3000);
  });
});

describe("retry", () => {
  it("backs off exponentially with jitter, capped, and lets Retry-After win", () => {
    const policy = retryPolicy({ baseDelayMs: 100, maxDelayMs: 1000 });
    expect(backoffDelay(policy, 0, undefined, () => 0)).toBe(50);
    expect(backoffDelay(policy, 2, undefined, () => 1)).toBe(400);
    expect(backoffDelay(policy, 10, undefined, () => 1)).toBe(1000);
    expect(backoffDelay(policy, 0, 700)).toBe(700);
    expect(backoffDelay(policy, 0, 5000)).toBe(1000);
  });

  it("retries a transient failure that produced nothing, then succeeds", async () => {
    const faux = createFaux({ replies: [{ error: { kind: "overloaded", message: "busy" } }, "fine"] });
    const message = await stream(faux.model, { messages: [] }, { retry: { baseDelayMs: 1 } }).result();
    expect(message.content).toEqual([{ type: "text", text: "fine" }]);
    expect(faux.requests).toHaveLength(2);
  });

  it("tells onRetry why, which attempt comes next and how long it waits; a throwing listener changes nothing", async () => {
    const faux = createFaux({
      replies: [
        { error: { kind: "rate_limit", message: "slow down", retryAfterMs: 5, status: 429 } },
        { error: { kind: "overloaded", message: "busy" } },
        "fine",
      ],
    });
    const notices: RetryNotice[] = [];
    const message = await stream(
      faux.model,
      { messages: [] },
      {
        retry: { maxRetries: 4, baseDelayMs: 1 },
        onRetry: (notice) => {
          notices.push(notice);
          throw new Error("a broken display");
        },
      },
    ).result();
    expect(message.content).toEqual([{ type: "text", text: "fine" }]);
    expect(notices).toHaveLength(2);
    expect(notices[0]).toEqual({
      attempt: 2,
      maxAttempts: 5,
      delayMs: 5,
      errorKind: "rate_limit",
      errorMessage: "slow down",
      status: 429,
    });
    expect(notices[1]).toMatchObject({ attempt: 3, maxAttempts: 5, errorKind: "overloaded" });
    expect(notices[1]!.status).toBeUndefined();
  });

  it("never restarts a stream that already produced output", async () => {
    const faux = createFaux({
      replies: [{ content: "half", error: { kind: "network", message: "reset" } }, "whole"],
    });
    const s = stream(faux.model, { messages: [] }, { retry: { baseDelayMs: 1 } });
    const types: string[] = [];
    for await (const event of s) types.push(event.type);
    expect(types.filter((t) => t === "start")).toHaveLength(1);
    expect((await s.result()).content).toEqual([{ type: "text", text: "half" }]);
    expect(faux.requests).toHaveLength(1);
    expect(faux.pending).toBe(1);
  });

  it("does not retry what retrying cannot fix", async () => {
    const faux = createFaux({ replies: [{ error: { kind: "auth", message: "bad key" } }, "never"] });
    const message = await stream(faux.model, { messages: [] }, { retry: { baseDelayMs: 1 } }).result();
    expect(message).toMatchObject({ stopReason: "error", errorKind: "auth" });
    expect(faux.requests).toHaveLength(1);
  });

  it("stops waiting for a retry when aborted", async () => {
    const faux = createFaux({
      replies: [{ error: { kind: "rate_limit", message: "wait", retryAfterMs: 60_000 } }],
    });
    const controller = new AbortController();
    // Abort once the retry layer starts the server's minute-long wait: only the abort can end it
    // before the test's timeout.
    const stop = onWait((ms) => {
      if (ms === 60_000) controller.abort();
    });
    const s = stream(faux.model, { messages: [] }, { signal: controller.signal });
    const message = await s.result();
    stop();
    expect(message.stopReason).toBe("aborted");
    expect(faux.requests).toHaveLength(1);
  });

  it("loads a built-in provider on first use", async () => {
    const faux = createFaux();
    const model = {
      ...faux.model,
      api: "openai-completions" as const,
      provider: "local",
      baseUrl: "http://127.0.0.1:1/v1",
    };
    const message = await stream(model, { messages: [] }, { retry: { maxRetries: 0 } }).result();
    expect(message).toMatchObject({ stopReason: "error", errorKind: "network", api: "openai-completions" });
  });

  it("reports an unknown api as an error message, not an exception", async () => {
    const faux = createFaux();
    const message = await stream({ ...faux.model, api: "nope" as "faux" }, { messages: [] }).result();
    expect(message).toMatchObject({ stopReason: "error", errorKind: "invalid_request" });
    expect(message.errorMessage).toMatch(/No provider for api "nope"/);
  });
});
