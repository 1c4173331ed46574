// The bundle's V8 code caches (src/code-cache.ts): every chunk the build writes has one, the
// Node that built it accepts them all, and a cache that is damaged or missing changes nothing a
// user sees — V8 rejects it (TERN_STARTUP_TRACE names it) and the chunk compiles as usual.
import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import Module from "node:module";
import { join } from "node:path";
import { Script } from "node:vm";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, runTernProcess, TERN_JS, tempDir, ternEnv } from "./support/tern.js";

beforeAll(ensureBuilt);

const DIST = join(TERN_JS, "..");
const traced = () => ({ env: { ...ternEnv(), TERN_STARTUP_TRACE: "1" } });
const rejections = (stderr: string) =>
  stderr.split("\n").filter((line) => line.includes("code cache rejected"));

/** A copy of the built bundle whose caches `spoil` rewrites (or removes). */
function bundleCopy(spoil: (cache: string) => void): string {
  const dist = join(tempDir(), "dist");
  cpSync(DIST, dist, { recursive: true });
  for (const name of readdirSync(join(dist, "chunks")))
    if (name.endsWith(".v8cache")) spoil(join(dist, "chunks", name));
  return join(dist, "tern.js");
}

describe("the bundle's code caches", () => {
  it("sit beside every chunk, and the Node that built them takes them all", async () => {
    const names = new Set(readdirSync(join(DIST, "chunks")));
    const metafile = readFileSync(join(DIST, ".meta.json"), "utf8");
    const chunks = Object.keys(JSON.parse(metafile).outputs as Record<string, unknown>)
      .filter((path) => path.includes("/chunks/") && path.endsWith(".js"))
      .map((path) => path.slice(path.lastIndexOf("/") + 1));
    expect(chunks.length).toBeGreaterThan(10);
    expect(chunks.filter((chunk) => !names.has(`${chunk}.v8cache`))).toEqual([]);
    const run = await runTernProcess(["run", "--help"], traced());
    expect(run.code).toBe(0);
    expect(rejections(run.stderr)).toEqual([]);
  });

  it("a damaged cache is rejected and the command answers as before", async () => {
    const good = await runTernProcess(["models"], { env: ternEnv() });
    const entry = bundleCopy((cache) => writeFileSync(cache, "not a code cache"));
    const damaged = await runTernProcess(["models"], { ...traced(), entry });
    expect(damaged.code).toBe(0);
    expect(damaged.stdout).toBe(good.stdout);
    expect(rejections(damaged.stderr).length).toBeGreaterThan(0);
  });

  it("a training run rewrites the caches of the chunks it ran, grown by what it compiled, and V8 takes them", async () => {
    const sizes = (dist: string) =>
      new Map(
        readdirSync(join(dist, "chunks"))
          .filter((name) => name.endsWith(".v8cache"))
          .map((name) => [name, statSync(join(dist, "chunks", name)).size]),
      );
    // Compile-only caches, as the build writes them before its training demo.
    const entry = bundleCopy((cache) => {
      const chunk = cache.slice(0, -".v8cache".length);
      writeFileSync(
        cache,
        new Script(Module.wrap(readFileSync(chunk, "utf8")), { filename: chunk }).createCachedData(),
      );
    });
    const dist = join(entry, "..");
    const before = sizes(dist);
    const good = await runTernProcess(["models"], { env: ternEnv() });
    const trained = await runTernProcess(["models"], {
      env: { ...ternEnv(), TERN_TRAIN_CODE_CACHES: "1" },
      entry,
    });
    expect({ code: trained.code, stdout: trained.stdout }).toEqual({ code: 0, stdout: good.stdout });
    const after = sizes(dist);
    const grown = [...after].filter(([name, size]) => size > before.get(name)!);
    expect(grown.length).toBeGreaterThan(0);
    expect(readdirSync(join(dist, "chunks")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    const again = await runTernProcess(["models"], { ...traced(), entry });
    expect(again.stdout).toBe(good.stdout);
    expect(rejections(again.stderr)).toEqual([]);
  });

  it("a one-pass command runs under its own V8 flags and reads no cache, so none is rejected", async () => {
    const listed = await runTernProcess(["sessions", "ls", "--all"], {
      env: { ...ternEnv({ TERN_HOME: tempDir() }), TERN_STARTUP_TRACE: "1" },
    });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("no sessions yet");
    expect(rejections(listed.stderr)).toEqual([]);
    expect(listed.stderr.split("\n").filter((line) => line && !line.startsWith("tern startup:"))).toEqual([]);
  });

  it("with no caches at all the bundle runs as it would without them", async () => {
    const good = await runTernProcess(["run", "--help"], { env: ternEnv() });
    const entry = bundleCopy((cache) => rmSync(cache));
    const bare = await runTernProcess(["run", "--help"], { ...traced(), entry });
    expect({ code: bare.code, stdout: bare.stdout }).toEqual({ code: 0, stdout: good.stdout });
    expect(rejections(bare.stderr)).toEqual([]);
  });
});
