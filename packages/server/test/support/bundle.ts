// The server entry (src/main.ts) bundled with esbuild, so tests can run it as a real child
// process with plain `node` (Node 20 cannot run TypeScript).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ENTRY = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
const PACKAGES = fileURLToPath(new URL("../../../", import.meta.url));
let built: Promise<string> | undefined;

/** Newest modification time of the workspace packages' sources: the bundle's cache key. */
function sourceStamp(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const name of readdirSync(PACKAGES))
    if (existsSync(join(PACKAGES, name, "src"))) walk(join(PACKAGES, name, "src"));
  return Math.floor(newest);
}

/** Builds once per change of the sources (shared by test processes); resolves with the bundle's path. */
export function bundleServer(): Promise<string> {
  built ??= (async () => {
    // Inside this clone: a directory in /tmp would be shared with other clones whose sources differ.
    const dir = join(PACKAGES, "..", "node_modules", ".cache", "tern-server-bundle");
    const outfile = join(dir, `main-${sourceStamp()}.mjs`);
    if (existsSync(outfile)) return outfile;
    mkdirSync(dir, { recursive: true });
    const esbuild = await import("esbuild");
    // Written aside and renamed: a parallel test process never runs half a file.
    const draft = `${outfile}.${process.pid}.tmp.mjs`;
    await esbuild.build({
      entryPoints: [ENTRY],
      outfile: draft,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      logLevel: "warning",
      // Bundled CommonJS dependencies call require() for Node built-ins.
      banner: {
        js: 'import { createRequire as __ternCreateRequire } from "node:module"; const require = __ternCreateRequire(import.meta.url);',
      },
    });
    renameSync(draft, outfile);
    return outfile;
  })();
  return built;
}

/**
 * A `.js` launcher of the bundle: the official Copilot SDK runs a CLI path ending in .js with
 * node (CommonJS here, so it loads the ESM bundle with import()).
 */
export async function serverLauncher(): Promise<string> {
  const bundle = await bundleServer();
  const launcher = bundle.replace(/\.mjs$/, ".launcher.js");
  if (!existsSync(launcher)) {
    writeFileSync(
      `${launcher}.${process.pid}.tmp`,
      `import(${JSON.stringify(pathToFileURL(bundle).href)});\n`,
    );
    renameSync(`${launcher}.${process.pid}.tmp`, launcher);
  }
  return launcher;
}

/** Starts the bundled server with `args`; resolves once it printed a line starting with each of `prefixes`. */
export async function spawnServer(
  args: string[],
  prefixes: string[],
): Promise<{ child: ChildProcess; lines: string[] }> {
  const bundle = await bundleServer();
  const child = spawn(process.execPath, [bundle, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const lines = prefixes.map((prefix) => out.split("\n").find((line) => line.startsWith(prefix)));
      if (lines.every((line) => line !== undefined)) resolve({ child, lines: lines as string[] });
    });
    child.once("exit", (code) =>
      reject(new Error(`server exited (${code}) before ${prefixes.join(", ")}: ${err}`)),
    );
  });
}
