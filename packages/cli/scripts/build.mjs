#!/usr/bin/env node
// Bundles the `tern` command into packages/cli/dist with esbuild:
//   dist/tern.js      the entry: argument fast paths (--version, --help), nothing heavy
//   dist/tern-app.js  the command table, imported by tern.js only when a command needs it
//   dist/chunks/      everything else, split by esbuild at each dynamic import(): one chunk per
//                     command and per heavy feature (PostgreSQL, MCP SDK, the TUI's Markdown, …),
//                     so a command parses only what it reaches. Names carry a content hash.
//   dist/tern-otel.js the OpenTelemetry SDK and OTLP exporters, imported only when an
//                     OTEL_EXPORTER_OTLP_*ENDPOINT is set
//   dist/examples/    the demo's example project, so a packed or installed copy can run `tern demo`
//   dist/web/         the page `tern serve` serves at / (@tern/web's build), read from disk on request
//   dist/.meta.json   esbuild's metafile, for `node packages/cli/scripts/bundle-report.mjs`
//   dist/chunks/*.v8cache  each chunk's V8 code cache, used at start (src/code-cache.ts), made
//                     again after a training run of `tern demo` (train-code-caches.mjs)
//   dist/package.json "type": "commonjs": esbuild splits ESM, and each file is then rewritten as
//                     CommonJS, which Node 20 loads without the ESM loader's start-up cost
//                     (commonjs-output.mjs)
// The bundles hold every dependency: the package installs with nothing to download.
// A rebuild never leaves a running `tern` half a file or a missing chunk: chunks are immutable
// (a changed chunk gets a new hashed name) and are written first, then each entry is written to a
// temporary name and renamed over the old one. Chunks no build references any more are removed
// an hour after the first build that left them out (prune-chunks.mjs), so a process that loaded
// an earlier tern-app.js can still import the chunks it names. `--if-stale` skips the build when
// the bundle is newer than every source file of the workspace packages.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rewriteBarrelImports } from "./barrel-imports.mjs";
import { CODE_CACHE_SUFFIX, codeCacheOf } from "./code-cache.mjs";
import { toCommonJs } from "./commonjs-output.mjs";
import { pruneChunks } from "./prune-chunks.mjs";
import { trainCodeCaches } from "./train-code-caches.mjs";

const cliDir = dirname(dirname(fileURLToPath(import.meta.url)));
const packagesDir = dirname(cliDir);
const distDir = join(cliDir, "dist");
const outputs = {
  main: join(distDir, "tern.js"),
  app: join(distDir, "tern-app.js"),
  otel: join(distDir, "tern-otel.js"),
};
const chunksDir = join(distDir, "chunks");
const METAFILE = join(distDir, ".meta.json");
const EXAMPLES = ["stats-bug"];
const examplesDir = join(dirname(packagesDir), "examples");

/** Newest modification time of any file under the packages' src directories (and the build's scripts). */
function newestSource() {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  walk(join(cliDir, "scripts"));
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

// cosmiconfig (graphile-config's config-file loader) requires the TypeScript compiler, 10 MB, to
// read a graphile.config.ts. tern never reads one: it hands graphile-worker its options in code.
const noTypeScript = {
  name: "no-typescript",
  setup(build) {
    build.onResolve({ filter: /^typescript$/ }, () => ({ path: "typescript", namespace: "no-typescript" }));
    build.onLoad({ filter: /.*/, namespace: "no-typescript" }, () => ({
      contents:
        'throw new Error("tern does not bundle the TypeScript compiler: a graphile.config.ts cannot be loaded");',
      loader: "js",
    }));
  },
};

// Our own modules run nothing at import time that another module needs (a provider registers
// itself in the module that exports it; the sandbox's exit hook lives with createSandbox), so a
// module none of whose exports a chunk uses is left out of it. Without this, importing one name
// from a package's index.ts drags the whole package (and its zod schemas) into every command.
const WORKSPACE_SOURCE = /[\\/]packages[\\/][^\\/]+[\\/]src[\\/]/;
const WORKSPACE_SOURCE_FILE = /[\\/]packages[\\/][^\\/]+[\\/]src[\\/].*\.tsx?$/;
const workspaceWithoutSideEffects = {
  name: "workspace-without-side-effects",
  setup(build) {
    build.onResolve({ filter: /^(@tern\/|\.)/ }, async (args) => {
      if (args.pluginData === workspaceWithoutSideEffects || args.kind === "entry-point") return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: workspaceWithoutSideEffects,
      });
      if (resolved.errors.length > 0 || !WORKSPACE_SOURCE.test(resolved.path)) return undefined;
      return { ...resolved, sideEffects: false };
    });
  },
};

// One zod 4 in the bundle, with English messages only. zod re-exports every locale as the
// `locales` namespace (its classic, mini and core entries); tern configures none but the default
// `en`, so that namespace holds `en` alone (-300 KB). The MCP SDK uses zod/v4-mini for a few
// calls (object, safeParse, safeParseAsync, toJSONSchema) that zod/v4 exports with the same
// meaning over the same core: it gets zod/v4, which the SDK's protocol schemas load anyway.
const ZOD_LOCALES_IMPORTER = /[\\/]node_modules[\\/]zod[\\/]v4[\\/](classic|mini|core)[\\/]/;
const oneZod = {
  name: "one-zod",
  setup(build) {
    build.onResolve({ filter: /^zod\/v4-mini$/ }, (args) =>
      build.resolve("zod/v4", { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir }),
    );
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      ZOD_LOCALES_IMPORTER.test(args.importer)
        ? { path: join(args.resolveDir, "..", "locales", "index.js"), namespace: "zod-en-only" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-en-only" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), "en.js"))};`,
      loader: "js",
      resolveDir: dirname(args.path),
    }));
  },
};

// The MCP SDK imports Ajv and ajv-formats at load and builds an Ajv in each Client and Server
// constructor; its provider module is swapped for ours, which builds it at the first schema from
// the vendored ajv.cjs (packages/mcp/src/sdk-ajv-validator.ts says why).
const SDK_AJV_PROVIDER = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]/;
const lazySdkValidator = {
  name: "lazy-sdk-validator",
  setup(build) {
    build.onResolve({ filter: /validation\/ajv-provider\.js$/ }, (args) =>
      SDK_AJV_PROVIDER.test(args.importer)
        ? { path: join(packagesDir, "mcp", "src", "sdk-ajv-validator.ts") }
        : undefined,
    );
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
// The same pass points imports from a workspace package's index at the declaring module
// (barrel-imports.mjs), so each command's chunks hold what it uses, not whole packages.
const LAZY_REQUIRE = "createRequire(import.meta.url)(";
const indexOf = (pkg) => {
  const index = join(packagesDir, pkg.slice("@tern/".length), "src", "index.ts");
  return existsSync(index) ? index : undefined;
};
const workspaceSources = {
  name: "workspace-sources",
  setup(build) {
    const exportsCache = new Map();
    build.onLoad({ filter: WORKSPACE_SOURCE_FILE }, (args) => {
      const source = readFileSync(args.path, "utf8");
      const contents = rewriteBarrelImports(
        source.replaceAll(LAZY_REQUIRE, "require("),
        indexOf,
        exportsCache,
      );
      return { contents, loader: args.path.endsWith(".tsx") ? "tsx" : "ts" };
    });
  },
};

// mvdan-sh (the shell parser behind permission rules, 3 MB of generated code) and yaml (the front
// matter of skills and agent profiles, 250 KB) are required lazily at their first use; bundled into
// the chunk that calls them, every command that could check a rule or read a skill would parse
// them at start. Each goes to its own file beside the chunks and is required from there.
// Ajv's three dialects (250 KB, at the first JSON Schema compiled) share one file: its module
// exports each class under the name every one of the three requires reads.
// ajv-formats (the MCP SDK's validator adds it) is there too, as `default`, the name its own
// module exports it under, so it shares that file's one copy of Ajv.
const AJV_CLASSES =
  'module.exports = { Ajv: require("ajv").Ajv, Ajv2019: require("ajv/dist/2019.js").Ajv2019, Ajv2020: require("ajv/dist/2020.js").Ajv2020, default: require("ajv-formats").default };';
/** Each file written beside the chunks, the specifiers whose requires it answers, and its source. */
const VENDORED = [
  { file: "mvdan-sh.cjs", requires: ["mvdan-sh"] },
  { file: "yaml.cjs", requires: ["yaml"] },
  {
    file: "ajv.cjs",
    requires: ["ajv", "ajv/dist/2019.js", "ajv/dist/2020.js", "ajv-formats"],
    contents: AJV_CLASSES,
  },
];
const VENDORED_FILE = new Map(VENDORED.flatMap(({ file, requires }) => requires.map((name) => [name, file])));
const VENDORED_NAME = new RegExp(
  `^(${[...VENDORED_FILE.keys()].map((name) => name.replaceAll(".", "\\.")).join("|")})$`,
);
const vendoredAsFiles = {
  name: "vendored-as-files",
  setup(build) {
    build.onResolve({ filter: VENDORED_NAME }, (args) =>
      args.kind === "require-call"
        ? { path: `./${VENDORED_FILE.get(args.path)}`, external: true }
        : undefined,
    );
  },
};

/** The .js files of dist/ are CommonJS (the package itself is "type": "module"). */
const DIST_PACKAGE_JSON = `${JSON.stringify({ type: "commonjs" })}\n`;

const isChunk = (file) => file.path.startsWith(`${chunksDir}/`);

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
  const [main, app, ...vendored] = await Promise.all([
    esbuild.build({
      ...common,
      entryPoints: [join(cliDir, "src/main.ts")],
      outfile: outputs.main,
      plugins: [appAsExternal],
      banner: { js: "#!/usr/bin/env node" },
    }),
    esbuild.build({
      ...common,
      entryPoints: {
        "tern-app": join(cliDir, "src/app.ts"),
        "tern-otel": join(cliDir, "src/runtime/otel-sdk.ts"),
      },
      outdir: distDir,
      splitting: true,
      entryNames: "[name]",
      chunkNames: "chunks/[name]-[hash]",
      metafile: true,
      plugins: [
        lazySdkValidator,
        workspaceWithoutSideEffects,
        workspaceSources,
        vendoredAsFiles,
        noTypeScript,
        oneZod,
      ],
    }),
    ...VENDORED.map(({ file, requires, contents }) => {
      const entry = contents
        ? { stdin: { contents, resolveDir: cliDir, loader: "js" } }
        : { entryPoints: [createRequire(import.meta.url).resolve(requires[0])] };
      return esbuild.build({ ...common, ...entry, format: "cjs", outfile: join(chunksDir, file) });
    }),
  ]);
  // A require("./mvdan-sh.cjs") resolves beside the file that makes it: that must be a chunk.
  for (const file of app.outputFiles)
    for (const { file: vendoredFile } of VENDORED)
      if (!isChunk(file) && file.text.includes(`"./${vendoredFile}"`))
        throw new Error(`${file.path} requires ./${vendoredFile}, which lives in ${chunksDir}`);
  // Split as ESM, loaded as CommonJS (commonjs-output.mjs says why).
  const commonJs = (result) =>
    Promise.all(
      result.outputFiles.map(async (file) => ({
        path: file.path,
        contents: file.path.endsWith(".js") ? await toCommonJs(esbuild, file.text) : file.contents,
      })),
    );
  const [appFiles, mainFiles] = await Promise.all([commonJs(app), commonJs(main)]);
  mkdirSync(chunksDir, { recursive: true });
  const written = new Set();
  const write = (file) => {
    const temp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temp, file.contents, { mode: 0o755 });
    renameSync(temp, file.path);
    written.add(file.path);
  };
  // A chunk with its V8 code cache (src/code-cache.ts), the cache first.
  const writeChunk = (file) => {
    if (typeof file.contents === "string")
      write({ path: `${file.path}${CODE_CACHE_SUFFIX}`, contents: codeCacheOf(file.contents, file.path) });
    write(file);
  };
  // Dependencies first: a new file must never find a chunk it imports missing.
  for (const result of vendored)
    for (const file of result.outputFiles) writeChunk({ path: file.path, contents: file.text });
  write({ path: join(distDir, "package.json"), contents: DIST_PACKAGE_JSON });
  for (const file of appFiles.filter(isChunk)) writeChunk(file);
  for (const file of appFiles.filter((file) => !isChunk(file))) write(file);
  for (const file of mainFiles) write(file);
  write({ path: METAFILE, contents: JSON.stringify(app.metafile) });
  pruneChunks(chunksDir, written);
  copyExamples();
  const untrained = trainCodeCaches(outputs.main);
  if (untrained) process.stderr.write(`build: code caches left untrained: ${untrained}\n`);
  await buildWeb(join(distDir, "web"));
  if (!quiet)
    process.stderr.write(
      `built ${outputs.main}, ${outputs.app}, ${chunksDir}/, ${outputs.otel} and ${join(distDir, "web")}\n`,
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
