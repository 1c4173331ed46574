// Runs a TypeScript file in a real child process. The file is bundled once per test file
// (esbuild: its @tern imports compiled in, every other package left to node_modules), so each
// child is plain `node` on one file: under `--import tsx` every child compiled and loaded the
// whole package graph again, about 3 s of CPU each, and the cluster tests start dozens of them.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { afterAll } from "vitest";

export const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** Inside the repository, so the bundles' bare imports resolve from its node_modules. */
const BUNDLES = join(REPO_ROOT, "node_modules", ".cache", "tern-test-children");
const bundles = new Map<string, string>();

// The bench (`bench/src/cluster.ts`) imports this module outside vitest, where afterAll throws.
if (process.env.VITEST)
  afterAll(() => {
    // A child still running has read its bundle already.
    for (const entry of bundles.values()) rmSync(dirname(entry), { recursive: true, force: true });
    bundles.clear();
  });

export function spawnTs(
  file: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): ChildProcess {
  return spawn(process.execPath, [bundledTs(file), ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/**
 * The bundle of `file` (relative to the repository) this test file made, made now if none;
 * removed after the file. Split at each dynamic import(), so a child loads what it imports
 * lazily (the crash child's PostgreSQL store) only when it takes that path.
 */
export function bundledTs(relative: string): string {
  const file = resolve(REPO_ROOT, relative);
  const made = bundles.get(file);
  if (made) return made;
  const outdir = join(BUNDLES, `${basename(file, ".ts")}-${randomUUID()}`);
  mkdirSync(outdir, { recursive: true });
  buildSync({
    entryPoints: [file],
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "error",
    external: thirdParty(),
  });
  const entry = join(outdir, `${basename(file, ".ts")}.mjs`);
  bundles.set(file, entry);
  return entry;
}

/** Every installed package but tern's own (which are TypeScript sources), with its subpaths. */
function thirdParty(): string[] {
  const modules = join(REPO_ROOT, "node_modules");
  const names = readdirSync(modules).flatMap((name) => {
    if (name.startsWith(".") || name === "@tern") return [];
    if (!name.startsWith("@")) return [name];
    return readdirSync(join(modules, name)).map((scoped) => `${name}/${scoped}`);
  });
  return names.flatMap((name) => [name, `${name}/*`]);
}

/** Resolves with the first stdout line equal to `line`; rejects if the child exits first. */
export function waitForLine(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString();
      if (buffer.split("\n").includes(line)) {
        child.stdout?.off("data", onData);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`child exited (${code}) before "${line}": ${stderr}`)));
  });
}

/** A pid that surely belongs to no live process: a child that already exited. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
}
