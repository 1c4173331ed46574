#!/usr/bin/env node
// The `tern` bin: runs the bundle in ../dist (built by `npm run build`). A fresh checkout that was
// never built gets it built once, here.
import { existsSync } from "node:fs";

const bundle = new URL("../dist/tern.js", import.meta.url);
if (!existsSync(bundle)) {
  const { build } = await import("../scripts/build.mjs");
  await build({ quiet: true });
}
await import(bundle.href);
