// Rewrites one file of esbuild's split ESM output as CommonJS. esbuild splits only ESM, and on
// Node 20 every ESM file costs start-up that CommonJS does not: the first module ~9 ms to bring
// up the ESM loader, ~0.6 ms each after it (resolve, async read, link), against ~0.1 ms for a
// required file (measured as CPU over 20 interleaved starts of a 20-module chain). `tern sessions
// ls` loads 20 files, `tern run` 54. So the build splits as ESM, then each file is turned into
// CommonJS with the same chunks and names:
// - `import("./chunk.js")` between our own files becomes a lazy `require`, so nothing reaches the
//   ESM loader; `import()` of anything else (a Node built-in loaded on demand) stays as it is.
// - `import.meta.url` becomes the file's own URL, as it was.
// dist/package.json says the .js files there are CommonJS.

/** The dynamic imports of our own chunks and entries, written by esbuild as `import("./x.js")`. */
const OWN_DYNAMIC_IMPORT = /\bimport\(("\.{1,2}\/[^"]+\.js")\)/g;
const IMPORT_META_URL = "__ternImportMetaUrl";

/** `text` (one ESM output file, possibly starting with a #! line) as CommonJS. */
export async function toCommonJs(esbuild, text) {
  const shebang = text.startsWith("#!") ? text.slice(0, text.indexOf("\n") + 1) : "";
  const body = text
    .slice(shebang.length)
    .replace(OWN_DYNAMIC_IMPORT, "Promise.resolve().then(() => require($1))");
  const usesMetaUrl = body.includes("import.meta.url");
  const { code } = await esbuild.transform(body, {
    format: "cjs",
    loader: "js",
    target: "node20",
    logLevel: "warning",
    // import() of Node built-ins stays import(): CommonJS may call it.
    supported: { "dynamic-import": true },
    ...(usesMetaUrl
      ? {
          define: { "import.meta.url": IMPORT_META_URL },
          banner: `const ${IMPORT_META_URL} = require("node:url").pathToFileURL(__filename).href;`,
        }
      : {}),
  });
  if (/\bimport\.meta\b/.test(code))
    throw new Error("an import.meta other than import.meta.url is left in the bundle");
  return shebang + code;
}
