// pi's web-ui as the bench serves it: the example app that ships inside the npm package
// (@mariozechner/pi-web-ui/example, unmodified), bundled with esbuild into a static folder. Its
// one hard-wired model (`getModel("anthropic", …)`) is redirected to the loopback model by
// aliasing `@mariozechner/pi-ai` to a module that re-exports it with getModel returning an
// OpenAI-compatible model at `baseUrl`; nothing else of the app is changed.

import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MODEL } from "./model-server.js";

const INDEX = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Pi Web UI - Example</title><link rel="stylesheet" href="/main.css"></head>
<body class="bg-background"><div id="app"></div><script type="module" src="/main.js"></script></body>
</html>
`;

/** Builds the example app of the pi-web-ui package installed under `prefix` into `out`. */
export async function buildPiSite(prefix: string, out: string, baseUrl: string): Promise<void> {
  const esbuild = await import("esbuild");
  const pkg = join(prefix, "node_modules/@mariozechner/pi-web-ui");
  const realAi = join(prefix, "node_modules/@mariozechner/pi-ai/dist/index.js");
  const katexFonts = join(prefix, "node_modules/katex/dist/fonts");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const shim = join(out, "..", "pi-ai-loopback.js");
  const model = {
    id: MODEL,
    name: MODEL,
    api: "openai-completions",
    provider: "bench",
    baseUrl: `${baseUrl}/v1`,
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128000,
    maxTokens: 4096,
    compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
  };
  writeFileSync(
    shim,
    `export * from ${JSON.stringify(realAi)};\nexport const getModel = () => (${JSON.stringify(model)});\n`,
  );
  await esbuild.build({
    entryPoints: { main: join(pkg, "example/src/main.ts") },
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    outdir: out,
    // Dynamic imports stay separate chunks, as the example's own Vite build keeps them.
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    loader: { ".woff2": "file", ".woff": "file", ".ttf": "file", ".svg": "file" },
    logLevel: "error",
    nodePaths: [join(prefix, "node_modules")],
    plugins: [
      {
        name: "pi-ai-loopback",
        setup(build) {
          build.onResolve({ filter: /^@mariozechner\/pi-ai$/ }, () => ({ path: shim }));
          // app.css names KaTeX's fonts relative to itself; they ship in the katex package.
          build.onResolve({ filter: /^fonts\/KaTeX_/ }, (args) => ({
            path: join(katexFonts, args.path.slice(6)),
          }));
          // A Node built-in imported by a provider SDK the page never calls: an empty module, as
          // Vite (the example's own bundler) gives browser builds.
          build.onResolve({ filter: /^process$/ }, () => ({ path: "process", namespace: "empty" }));
          build.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "export default {};" }));
        },
      },
    ],
  });
  writeFileSync(join(out, "index.html"), INDEX);
}
