// The OAuth credential store under changes that arrive at once, as the SDK's saves of one login
// do: every change lands (none overwrites another's field), none fails on another's temporary
// file, and the file is the last state, 0600, with no temporary file left beside it.
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { OAuthStore } from "../src/oauth-store.js";

const URL = "https://mcp.example.test/mcp";
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("OAuthStore", () => {
  it("keeps every one of many changes made at once to one server's file", async () => {
    dir = mkdtempSync(join(tmpdir(), "tern-oauth-store-"));
    const store = new OAuthStore(join(dir, "auth"));
    const verifiers = Array.from({ length: 20 }, (_, i) => `verifier-${i}`);
    await Promise.all([
      store.write("remote", URL, { url: URL }),
      ...verifiers.map((codeVerifier, i) =>
        store.update("remote", URL, (data) => ({
          ...data,
          codeVerifier,
          discovery: { ...data.discovery, [`seen${i}`]: true } as never,
        })),
      ),
      store.update("remote", URL, (data) => ({
        ...data,
        tokens: { access_token: "a", token_type: "bearer" },
      })),
    ]);
    const stored = await store.read("remote", URL);
    expect(stored.tokens?.access_token).toBe("a");
    expect(stored.codeVerifier).toBe("verifier-19");
    expect(Object.keys(stored.discovery ?? {})).toHaveLength(verifiers.length);
    expect(readdirSync(join(dir, "auth"))).toEqual([store.file("remote", URL).split("/").at(-1)]);
    expect(statSync(store.file("remote", URL)).mode & 0o777).toBe(0o600);
  });

  it("goes on with the next change after one that threw", async () => {
    dir = mkdtempSync(join(tmpdir(), "tern-oauth-store-"));
    const store = new OAuthStore(join(dir, "auth"));
    const failed = store.update("remote", URL, () => {
      throw new Error("bad change");
    });
    const next = store.update("remote", URL, (data) => ({ ...data, codeVerifier: "after" }));
    await expect(failed).rejects.toThrow("bad change");
    await next;
    expect((await store.read("remote", URL)).codeVerifier).toBe("after");
    expect(await store.remove("remote", URL)).toBe(false);
  });
});
