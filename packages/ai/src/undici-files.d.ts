// Types for the two undici files undici-parts.ts imports directly (the package types only its index).
declare module "undici/lib/dispatcher/agent.js" {
  const Agent: typeof import("undici").Agent;
  export default Agent;
}
declare module "undici/lib/web/fetch/index.js" {
  const fetchModule: { fetch: typeof import("undici").fetch };
  export default fetchModule;
}
