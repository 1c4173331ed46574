#!/usr/bin/env node
// Bundles the page with esbuild into OUT (default packages/web/dist):
//   index.html                     no inline script or style (the server's CSP forbids them)
//   assets/main-<hash>.js|.css     content-hashed, so the server marks them immutable
// `buildWeb(outDir)` is what the cli's build calls to ship the page inside its bundle.
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const webDir = dirname(dirname(fileURLToPath(import.meta.url)));

const page = (script, style) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tern</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/${style}">
<script type="module" src="/assets/${script}"></script>
</head>
<body>
<div id="app"></div>
</body>
</html>
`;

/** Writes the page into `outDir` (replacing what was there); returns its files' sizes. */
export async function buildWeb(outDir = join(webDir, "dist")) {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [join(webDir, "src/main.tsx")],
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    jsx: "automatic",
    jsxImportSource: "preact",
    entryNames: "[name]-[hash]",
    outdir: join(outDir, "assets"),
    write: false,
    legalComments: "none",
    logLevel: "warning",
  });
  const names = result.outputFiles.map((file) => basename(file.path));
  const script = names.find((name) => name.endsWith(".js"));
  const style = names.find((name) => name.endsWith(".css"));
  // Build next to the target and swap, so a server reading it never sees half a page.
  const temp = `${outDir}.${process.pid}.tmp`;
  rmSync(temp, { recursive: true, force: true });
  mkdirSync(join(temp, "assets"), { recursive: true });
  for (const file of result.outputFiles)
    writeFileSync(join(temp, "assets", basename(file.path)), file.contents);
  writeFileSync(join(temp, "index.html"), page(script, style));
  rmSync(outDir, { recursive: true, force: true });
  renameSync(temp, outDir);
  const sizes = result.outputFiles.map((file) => ({
    name: basename(file.path),
    bytes: file.contents.length,
    gzip: gzipSync(file.contents).length,
  }));
  return sizes;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildWeb(process.argv[2])
    .then((sizes) => {
      for (const { name, bytes, gzip } of sizes)
        process.stderr.write(`${name}: ${bytes} bytes, ${gzip} gzipped\n`);
    })
    .catch((error) => {
      process.stderr.write(`web build failed: ${error?.message ?? error}\n`);
      process.exit(1);
    });
}
