// Where the web page is: the cli's build puts @tern/web's bundle in dist/web, beside the entry
// (this code runs from a chunk in dist/chunks), so a packed package carries it. The files are
// served from there on request; no bundle holds them. Run from source (no bundle), there is none,
// and `tern serve` serves the API alone.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export function webRoot(): string | undefined {
  for (const relative of ["../web/", "./web/"]) {
    const dir = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  return undefined;
}

/** The line `tern serve` and `tern demo --web` print: the address to open. */
export function webLine(url: string, token: boolean, fragment = ""): string {
  return `open ${url}/${fragment} in a browser${token ? " (the page asks for the token)" : ""}`;
}
