// Which commands run as one pass (src/one-pass.ts): those that read and print, never one that
// runs the agent or serves, whose hot loops need V8's optimizing compiler.
import { describe, expect, it } from "vitest";
import { isOnePass } from "../src/one-pass.js";

describe("one-pass commands", () => {
  it("are the listings and reports", () => {
    for (const argv of [
      ["usage"],
      ["usage", "--json"],
      ["sessions", "ls", "--all"],
      ["sessions", "show", "abc"],
    ])
      expect(isOnePass(argv)).toBe(true);
  });

  it("never include what runs the agent or serves, nor a bare or unknown subcommand", () => {
    for (const argv of [
      [],
      ["run", "hi"],
      ["chat"],
      ["serve"],
      ["mcp", "serve"],
      ["acp"],
      ["worker"],
      ["sessions"],
      ["sessions", "resume", "abc"],
      ["sessions", "nonsense"],
    ])
      expect(isOnePass(argv)).toBe(false);
  });
});
