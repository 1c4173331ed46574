// Ajv (draft-07, 2019-09 and 2020-12), required at the first schema compiled rather than when a
// command starts: its ~250 KB of CommonJS cost tens of ms to evaluate, and a run whose tools all
// have zod schemas and that makes no structured call never compiles a JSON Schema. A plain
// require keeps the callers synchronous; the CLI's build puts Ajv in a file of its own (ajv.cjs).
import { createRequire } from "node:module";

export interface AjvClasses {
  Ajv: typeof import("ajv").Ajv;
  Ajv2019: typeof import("ajv/dist/2019.js").Ajv2019;
  Ajv2020: typeof import("ajv/dist/2020.js").Ajv2020;
}

let classes: AjvClasses | undefined;

/** Ajv's classes, loaded once at the first call (JSON-Schema validation in `ai` and `agent`). */
export function loadAjv(): AjvClasses {
  // Each require is spelled `createRequire(import.meta.url)(…)`: the CLI's build finds that exact
  // text to put the package in a file of its own, so the call is not hoisted into a variable.
  classes ??= {
    Ajv: (createRequire(import.meta.url)("ajv") as typeof import("ajv")).Ajv,
    Ajv2019: (createRequire(import.meta.url)("ajv/dist/2019.js") as typeof import("ajv/dist/2019.js"))
      .Ajv2019,
    Ajv2020: (createRequire(import.meta.url)("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js"))
      .Ajv2020,
  };
  return classes;
}
