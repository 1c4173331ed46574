#!/usr/bin/env node
// The `tern` bin: runs the bundle in ../dist (built by `npm run build`). A fresh checkout that was
// never built gets it built once, here. CommonJS (bin/package.json), like the bundle: a start that
// never brings up Node's ESM loader is ~9 ms cheaper (scripts/commonjs-output.mjs).
const { existsSync } = require("node:fs");
const { join } = require("node:path");

const bundle = join(__dirname, "..", "dist", "tern.js");
if (existsSync(bundle)) require(bundle);
else import("../scripts/build.mjs").then(({ build }) => build({ quiet: true })).then(() => require(bundle));
