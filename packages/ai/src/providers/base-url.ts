// Where a provider sends a model's requests. The model's own baseUrl wins (a catalog entry, a
// config.json model, --base-url); then the host's base URL for the model's wire API (a proxy or
// gateway the host was told about: the CLI maps OPENAI_BASE_URL / ANTHROPIC_BASE_URL onto it);
// then the vendor's URL. The library reads no environment for this: the host decides.
import type { Model, StreamOptions } from "../types.js";

export function baseUrlFor(model: Model, options: StreamOptions, vendorDefault: string): string {
  return model.baseUrl ?? options.baseUrls?.[model.api] ?? vendorDefault;
}
