// The version is put in by the bundler (scripts/build.mjs); running from source shows "dev".
declare const __TERN_VERSION__: string | undefined;

export const VERSION: string = typeof __TERN_VERSION__ === "string" ? __TERN_VERSION__ : "0.0.0-dev";
