/**
 * Compiles tool-name globs into one matcher: `*` is any run of characters, `?` one character,
 * everything else is literal. Several globs match when any matches.
 */
export function globMatcher(globs: string | string[] | undefined): (name: string) => boolean {
  if (globs === undefined) return () => true;
  const list = typeof globs === "string" ? [globs] : globs;
  if (list.length === 0 || list.includes("*")) return () => true;
  const source = list.map(globToRegExpSource).join("|");
  const pattern = new RegExp(`^(?:${source})$`);
  return (name) => pattern.test(name);
}

function globToRegExpSource(glob: string): string {
  let out = "";
  for (const char of glob) {
    if (char === "*") out += ".*";
    else if (char === "?") out += ".";
    else out += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return out;
}
