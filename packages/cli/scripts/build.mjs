#!/usr/bin/env node
// Bundles the `tern` command into packages/cli/dist with esbuild:
//   dist/tern.js      the entry: argument fast paths (--version, --help), nothing heavy
//   dist/tern-app.js  everything else, imported by tern.js only when a command needs it
//   dist/tern-otel.js the OpenTelemetry SDK and OTLP exporters, imported by tern-app.js only when
//                     an OTEL_EXPORTER_OTLP_*ENDPOINT is set (a megabyte nobody else parses)
//   dist/examples/    the demo's example project, so a packed or installed copy can run `tern demo`
//   dist/web/         the page `tern serve` serves at / (@tern/web's build)
// The bundles hold every dependency: the package installs with nothing to download.
// Each file is written to a temporary name and renamed, so a test process that runs `tern` while
// another one rebuilds never reads half a file. `--if-stale` skips the build when the bundle is
// newer than every source file of the workspace packages.
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const cliDir = dirname(dirname(fileURLToPath(import.meta.url)));
const packagesDir = dirname(cliDir);
const distDir = join(cliDir, "dist");
const outputs = {
  main: join(distDir, "tern.js"),
  app: join(distDir, "tern-app.js"),
  otel: join(distDir, "tern-otel.js"),
};
const EXAMPLES = ["stats-bug"];
const examplesDir = join(dirname(packagesDir), "examples");

/** Newest modification time of any file under the packages' src directories (and this script). */
function newestSource() {
  let newest = statSync(fileURLToPath(import.meta.url)).mtimeMs;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const example of EXAMPLES) walk(join(examplesDir, example));
  for (const name of readdirSync(packagesDir)) {
    const src = join(packagesDir, name, "src");
    try {
      if (statSync(src).isDirectory()) walk(src);
    } catch {}
    try {
      newest = Math.max(newest, statSync(join(packagesDir, name, "package.json")).mtimeMs);
    } catch {}
  }
  return newest;
}

function isStale() {
  try {
    const built = Math.min(
      statSync(outputs.main).mtimeMs,
      statSync(outputs.app).mtimeMs,
      statSync(outputs.otel).mtimeMs,
      statSync(join(distDir, "web", "index.html")).mtimeMs,
    );
    return built < newestSource();
  } catch {
    return true;
  }
}

// tern.js imports "./app.js" in source; in the bundle that is the separate file tern-app.js.
const appAsExternal = {
  name: "tern-app-external",
  setup(build) {
    build.onResolve({ filter: /^\.\/app\.js$/ }, () => ({ path: "./tern-app.js", external: true }));
  },
};

// tracing.ts imports "./otel-sdk.js" only when tracing is on; in the bundle that is tern-otel.js.
const otelAsExternal = {
  name: "tern-otel-external",
  setup(build) {
    build.onResolve({ filter: /^\.\/otel-sdk\.js$/ }, () => ({ path: "./tern-otel.js", external: true }));
  },
};

/**
 * Copies each example under dist/examples, file by file through a temporary name, so a demo
 * running from another test process never sees a missing or half-written file.
 */
function copyExamples() {
  const copy = (from, to) => {
    mkdirSync(to, { recursive: true });
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      if (entry.name === "node_modules") continue;
      if (entry.isDirectory()) copy(join(from, entry.name), join(to, entry.name));
      else {
        const temp = join(to, `${entry.name}.${process.pid}.tmp`);
        writeFileSync(temp, readFileSync(join(from, entry.name)));
        renameSync(temp, join(to, entry.name));
      }
    }
  };
  for (const example of EXAMPLES) copy(join(examplesDir, example), join(distDir, "examples", example));
}

// Our sources load a few heavy CommonJS packages on first use with createRequire (mvdan-sh's parser
// takes a few hundred ms to load). In the bundle that call becomes a plain require(), which esbuild
// bundles and still runs lazily at the call site: the installed package has no node_modules.
const LAZY_REQUIRE = "createRequire(import.meta.url)(";
const lazyRequireBundled = {
  name: "lazy-require-bundled",
  setup(build) {
    build.onLoad({ filter: /[\\/]packages[\\/][^\\/]+[\\/]src[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      if (!source.includes(LAZY_REQUIRE)) return undefined;
      return { contents: source.replaceAll(LAZY_REQUIRE, "require("), loader: "ts" };
    });
  },
};

const REQUIRE_BANNER =
  'import { createRequire as __ternCreateRequire } from "node:module"; const require = __ternCreateRequire(import.meta.url);';

export async function build({ ifStale = false, quiet = false } = {}) {
  if (ifStale && !isStale()) return false;
  const esbuild = await import("esbuild");
  const version = JSON.parse(readFileSync(join(cliDir, "package.json"), "utf8")).version;
  const common = {
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    logLevel: "warning",
    define: { __TERN_VERSION__: JSON.stringify(version) },
    legalComments: "none",
  };
  const { buildWeb } = await import("../../web/scripts/build.mjs");
  const [main, app, otel] = await Promise.all([
    esbuild.build({
      ...common,
      entryPoints: [join(cliDir, "src/main.ts")],
      outfile: outputs.main,
      plugins: [appAsExternal],
      banner: { js: "#!/usr/bin/env node" },
    }),
    esbuild.build({
      ...common,
      entryPoints: [join(cliDir, "src/app.ts")],
      outfile: outputs.app,
      plugins: [lazyRequireBundled, otelAsExternal],
      // Bundled CommonJS dependencies call require() for Node built-ins.
      banner: { js: REQUIRE_BANNER },
    }),
    esbuild.build({
      ...common,
      entryPoints: [join(cliDir, "src/runtime/otel-sdk.ts")],
      outfile: outputs.otel,
      banner: { js: REQUIRE_BANNER },
    }),
  ]);
  mkdirSync(distDir, { recursive: true });
  // Dependencies first: a new file must never find an older one it imports missing an export.
  for (const result of [otel, app, main]) {
    for (const file of result.outputFiles) {
      const temp = `${file.path}.${process.pid}.tmp`;
      writeFileSync(temp, file.contents, { mode: 0o755 });
      renameSync(temp, file.path);
    }
  }
  copyExamples();
  await buildWeb(join(distDir, "web"));
  if (!quiet)
    process.stderr.write(
      `built ${outputs.main}, ${outputs.app}, ${outputs.otel} and ${join(distDir, "web")}\n`,
    );
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  build({ ifStale: args.includes("--if-stale"), quiet: args.includes("--quiet") }).catch((error) => {
    process.stderr.write(`build failed: ${error?.message ?? error}\n`);
    process.exit(1);
  });
}
