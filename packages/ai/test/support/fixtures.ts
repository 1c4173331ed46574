// The captured provider streams under test/fixtures/provider-streams (see its NOTICE), read for
// the provider tests that replay them through @tern/ai/testing's loopback server.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const FIXTURES = fileURLToPath(new URL("../fixtures/provider-streams/", import.meta.url));

/** The payload lines of a `*.chunks.txt` capture. */
export function fixtureLines(path: string): string[] {
  return fixtureText(path)
    .split("\n")
    .filter((line) => line.trim() !== "");
}

export function fixtureText(path: string): string {
  return readFileSync(FIXTURES + path, "utf8");
}
