// Points `import { x } from "@tern/pkg"` in our sources straight at the module that declares x.
// Why: esbuild splits code by which entries *reach* a file through any import, used or not, so one
// name taken from a package's index.ts makes every file behind that index part of the command that
// imported it (`tern sessions ls` parsed the agent, the tools and the MCP SDK). Our index.ts files
// only re-export (`export { a } from "./a.js"`, `export * from "./b.js"`), so importing a name from
// its declaring module binds the same thing. A name this reader cannot place stays on the index:
// the output is then larger, never different.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const RE_EXPORT = /export\s+(type\s+)?\{([^}]*)\}\s+from\s+"(\.[^"]+)";/g;
const STAR_EXPORT = /export\s+\*\s+from\s+"(\.[^"]+)";/g;
const DECLARATION =
  /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|abstract\s+class|interface|type|enum)\s+([A-Za-z0-9_$]+)/gm;
const FROM_PACKAGE = /(import|export)\s+(type\s+)?\{([^}]*)\}\s+from\s+"(@tern\/[a-z0-9-]+)";/g;

/** `./x.js` from `dir` as the TypeScript file it names. */
function sourceFile(dir, specifier) {
  const base = join(dir, specifier.replace(/\.js$/, ""));
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")])
    if (existsSync(candidate)) return candidate;
  return undefined;
}

/** `a`, `type a`, `a as b` → { name: "a", as: "b", type } */
function specifiers(list) {
  return list
    .split(",")
    .map((text) => text.trim())
    .filter(Boolean)
    .map((text) => {
      const type = /^type\s+/.test(text);
      const [name, as = name] = text.replace(/^type\s+/, "").split(/\s+as\s+/);
      return { name, as, type };
    });
}

/** Where each name a module exports is declared: name → { file, name } (the declaring module's own name). */
function exportsOf(file, cache = new Map()) {
  const known = cache.get(file);
  if (known) return known;
  const names = new Map();
  cache.set(file, names);
  const source = readFileSync(file, "utf8");
  for (const [, name] of source.matchAll(DECLARATION)) names.set(name, { file, name });
  for (const [, , list, specifier] of source.matchAll(RE_EXPORT)) {
    const target = sourceFile(dirname(file), specifier);
    if (!target) continue;
    for (const spec of specifiers(list))
      names.set(spec.as, exportsOf(target, cache).get(spec.name) ?? { file: target, name: spec.name });
  }
  for (const [, specifier] of source.matchAll(STAR_EXPORT)) {
    const target = sourceFile(dirname(file), specifier);
    if (!target) continue;
    for (const [name, place] of exportsOf(target, cache)) if (!names.has(name)) names.set(name, place);
  }
  return names;
}

/**
 * `source` with each value import (and re-export) from a workspace package split into one statement
 * per declaring module. `indexOf` maps "@tern/ai" to that package's index.ts.
 */
export function rewriteBarrelImports(source, indexOf, cache = new Map()) {
  return source.replace(FROM_PACKAGE, (statement, keyword, typeOnly, list, pkg) => {
    const index = indexOf(pkg);
    if (typeOnly || !index) return statement;
    const names = exportsOf(index, cache);
    const byFile = new Map();
    const rest = [];
    for (const spec of specifiers(list)) {
      if (spec.type) continue; // erased by TypeScript either way
      const place = names.get(spec.name);
      if (!place) {
        rest.push(spec.name === spec.as ? spec.name : `${spec.name} as ${spec.as}`);
        continue;
      }
      const entry = place.name === spec.as ? place.name : `${place.name} as ${spec.as}`;
      byFile.set(place.file, [...(byFile.get(place.file) ?? []), entry]);
    }
    const statements = [...byFile].map(
      ([file, entries]) => `${keyword} { ${entries.join(", ")} } from ${JSON.stringify(file)};`,
    );
    if (rest.length > 0) statements.push(`${keyword} { ${rest.join(", ")} } from "${pkg}";`);
    return statements.join(" ");
  });
}
