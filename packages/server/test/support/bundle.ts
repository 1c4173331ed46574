// `tern serve` as a real child process: the `tern` bundle (packages/cli/dist, built by the
// tests' global setup) behind a small launcher that puts "serve" in front of the arguments, so a
// test (or the official Copilot SDK) can start it as one file with plain `node`.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const CLI_DIR = fileURLToPath(new URL("../../../cli/", import.meta.url));
const TERN_JS = join(CLI_DIR, "dist", "tern.js");
let built: Promise<string> | undefined;

/** Builds the `tern` bundle if stale; resolves with the path of a launcher running `tern serve`. */
export function bundleServer(): Promise<string> {
  built ??= (async () => {
    execFileSync(process.execPath, [join(CLI_DIR, "scripts", "build.mjs"), "--if-stale", "--quiet"], {
      stdio: "inherit",
    });
    // Inside this clone: a launcher in /tmp would be shared with other clones whose bundles differ.
    const dir = join(CLI_DIR, "..", "..", "node_modules", ".cache", "tern-server-launcher");
    mkdirSync(dir, { recursive: true });
    const launcher = join(dir, "tern-serve.mjs");
    const text = `process.argv.splice(2, 0, "serve");\nawait import(${JSON.stringify(pathToFileURL(TERN_JS).href)});\n`;
    // Written aside and renamed: a parallel test process never runs half a file.
    writeFileSync(`${launcher}.${process.pid}.tmp`, text);
    renameSync(`${launcher}.${process.pid}.tmp`, launcher);
    return launcher;
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
