// Where the web page is: the cli's build puts @tern/web's bundle in dist/web, beside the bundle
// this code runs from, so a packed package carries it. Run from source (no bundle), there is none,
// and `tern serve` serves the API alone.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export function webRoot(): string | undefined {
  const dir = fileURLToPath(new URL("./web/", import.meta.url));
  return existsSync(`${dir}index.html`) ? dir : undefined;
}

/** The line `tern serve` and `tern demo --web` print: the address to open. */
export function webLine(url: string, token: boolean, fragment = ""): string {
  return `open ${url}/${fragment} in a browser${token ? " (the page asks for the token)" : ""}`;
}
