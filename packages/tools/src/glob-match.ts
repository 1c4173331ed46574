// Glob patterns from the model, matched in linear time. zeptomatch turns a glob into a regular
// expression without lookaround and re2js runs it; picomatch's backtracking expressions took
// seconds on `*a*a*a*b` against one long file name, long enough to freeze every session. Brace
// groups expand combinatorially while compiling, so their number of alternatives is capped.
// re2js (266 KB) is imported at the first glob or grep (`loadRe2`), not when the tools are built.

import zeptomatch from "zeptomatch";

let re2: Promise<typeof import("re2js")> | undefined;

/** re2js, imported once at its first use (grep's patterns and every glob share it). */
export function loadRe2(): Promise<typeof import("re2js")> {
  re2 ??= import("re2js");
  return re2;
}

const MAX_PATTERN_CHARS = 1000;
const MAX_BRACE_ALTERNATIVES = 1024;

/**
 * A matcher for root- or directory-relative POSIX paths; a pattern without "/" matches the file
 * name at any depth. Rejects with a readable Error for a pattern it will not compile.
 */
export async function compileGlob(pattern: string): Promise<(path: string) => boolean> {
  const cleaned = pattern.replace(/^\.\//, "");
  if (cleaned.length > MAX_PATTERN_CHARS) throw new Error(`longer than ${MAX_PATTERN_CHARS} characters`);
  if (braceAlternatives(cleaned) > MAX_BRACE_ALTERNATIVES)
    throw new Error(`its {…} groups expand to more than ${MAX_BRACE_ALTERNATIVES} alternatives`);
  const { RE2JS } = await loadRe2();
  const regex = RE2JS.compile(zeptomatch.compile(cleaned).source);
  if (cleaned.includes("/")) return (path) => regex.test(path);
  return (path) => regex.test(path.slice(path.lastIndexOf("/") + 1));
}

/** How many patterns the brace groups of a glob stand for (the product of each group's options). */
function braceAlternatives(pattern: string): number {
  let total = 1;
  const open: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (c === "{") open.push(1);
    else if (c === "," && open.length > 0) open[open.length - 1]!++;
    else if (c === "}" && open.length > 0) {
      total *= open.pop()!;
      if (total > MAX_BRACE_ALTERNATIVES) return total;
    }
  }
  return total;
}
